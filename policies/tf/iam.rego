# TF_008 (project extension): an IAM policy allowing every action on every
# resource, i.e. administrator access.
package sv.tf

import data.sv.lib.finding
import data.sv.lib.tf

deny contains f if {
	tf.iam_policy_type(input.block.type)
	some statement in tf.policy_statements(input.block.config.policy)
	tf.allows_everything(statement)
	message := sprintf("IAM policy %s allows Action \"*\" on Resource \"*\"", [input.block.address])
	f := finding.at("TF_008", message, "/policy")
}

deny contains f if {
	tf.iam_policy_type(input.block.type)
	tf.refers_to_open_document(input.block.config.policy)
	message := sprintf("IAM policy %s allows Action \"*\" on Resource \"*\"", [input.block.address])
	f := finding.at("TF_008", message, "/policy")
}
