# Credentials written into Terraform.
package sv.tf

import data.sv.lib.finding
import data.sv.lib.secrets
import data.sv.lib.tf

# TF_007: a variable whose non-empty literal string default is a secret,
# judged by the variable's *name* (the K8S_005 name pattern) or by the
# value's own form (an AWS access key id, a private key header). Upstream
# matched substrings of values (`key` in "monkey"), flagged any long
# base64-ish string, and failed on non-string defaults. Both bodies build the
# same element, so a variable matching both is one finding.
deny contains f if {
	input.block.block_type == "variable"
	default_value := input.block.config.default
	is_string(default_value)
	default_value != ""
	secrets.secret_name(input.block.name)
	f := finding.at("TF_007", sprintf("variable %q has a hard-coded credential as its default", [input.block.name]), "/default")
}

deny contains f if {
	input.block.block_type == "variable"
	secrets.credential_value(input.block.config.default)
	f := finding.at("TF_007", sprintf("variable %q has a hard-coded credential as its default", [input.block.name]), "/default")
}

# A default the host could not evaluate (Terraform itself only accepts
# literal defaults) is judged at its worst: it may be a credential.
deny contains f if {
	input.block.block_type == "variable"
	tf.unknown(input.block.config.default)
	f := finding.at("TF_007", sprintf("variable %q has a hard-coded credential as its default", [input.block.name]), "/default")
}
