# The entries of input.object when it is a core ConfigMap (K8S_005).
#
# A rule, not a function, so it is computed once per evaluation; it lives in
# a package of its own because regorus evaluates every rule of a package
# whenever one of them is referenced (a rule in sv.lib.k8s would cost every
# object the work of all of them).
package sv.lib.configmap

# [field, key, value] for every entry of a core ConfigMap's data/binaryData.
entries contains [field, key, value] if {
	input.object.apiVersion == "v1"
	input.object.kind == "ConfigMap"
	some field in ["data", "binaryData"]
	entries := input.object[field]
	is_object(entries)
	some key, value in entries
}

