# RDS instance rules, judged per instance (upstream: document-wide).
package sv.tf

import data.sv.lib.finding
import data.sv.lib.tf

# TF_004: storage_encrypted must be true (or "true", which Terraform
# converts); absent means false.
deny contains f if {
	input.block.type == "aws_db_instance"
	not tf.is_true(input.block.config.storage_encrypted)
	message := sprintf("RDS instance %s does not encrypt its storage", [input.block.address])
	f := finding.at("TF_004", message, tf.path_if_present(input.block.config, "storage_encrypted"))
}

# TF_005: a master password written as a literal string, unless AWS manages
# it (upstream had this inverted: it fired when no password was set). A
# reference to an input (`var.db_password` without a default) is not
# hard-coded; a value the file fixes but the host cannot evaluate is.
deny contains f if {
	input.block.type == "aws_db_instance"
	fixed_text(input.block.config.password)
	not tf.is_true(input.block.config.manage_master_user_password)
	message := sprintf("RDS instance %s has a hard-coded master password", [input.block.address])
	f := finding.at("TF_005", message, "/password")
}

fixed_text(value) if is_string(value)

fixed_text(value) if tf.unknown(value)
