# Catalogue of the built-in rules (spec E2 §1.7): the project severity and a
# title per id. Upstream's CRITICAL/HIGH map to high, MEDIUM to med, LOW to low.
#
# Entries are written one per rule (`rules.ID := …`) so that user policies can
# register their own ids beside them the same way.
package sv.meta

rules.K8S_001 := {"severity": "high", "title": "Container adds SYS_ADMIN, NET_ADMIN or ALL capabilities"}

rules.K8S_002 := {"severity": "high", "title": "Privileged container"}

rules.K8S_003 := {"severity": "med", "title": "hostPath volume"}

rules.K8S_004 := {"severity": "med", "title": "Service exposes SSH (22) or RDP (3389)"}

rules.K8S_005 := {"severity": "low", "title": "Secret in a ConfigMap"}

rules.GEN_001 := {"severity": "med", "title": "Container without cpu and memory limits"}

rules.GEN_002 := {"severity": "low", "title": "Namespaced object in the default namespace"}

rules.TF_001 := {"severity": "high", "title": "S3 bucket without server-side encryption"}

rules.TF_002 := {"severity": "med", "title": "S3 bucket without versioning"}

rules.TF_003 := {"severity": "high", "title": "Publicly accessible S3 bucket"}

rules.TF_004 := {"severity": "high", "title": "RDS instance storage not encrypted"}

rules.TF_005 := {"severity": "med", "title": "Hard-coded RDS master password"}

rules.TF_006 := {"severity": "high", "title": "Security group open to the internet on all ports"}

rules.TF_007 := {"severity": "high", "title": "Hard-coded credential in a variable default"}

rules.TF_008 := {"severity": "high", "title": "IAM policy allows every action on every resource"}
