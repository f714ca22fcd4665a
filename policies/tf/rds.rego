# RDS instance rules, judged per instance (upstream: document-wide).
package sv.tf

import data.sv.lib.finding
import data.sv.lib.tf

# TF_004: storage_encrypted must be literally true; absent means false.
deny contains f if {
	input.block.type == "aws_db_instance"
	not input.block.config.storage_encrypted == true
	message := sprintf("RDS instance %s does not encrypt its storage", [input.block.address])
	f := finding.at("TF_004", message, tf.path_if_present(input.block.config, "storage_encrypted"))
}

# TF_005: a master password written as a literal string, unless AWS manages
# it (upstream had this inverted: it fired when no password was set). A
# reference (`var.db_password`) is not hard-coded.
deny contains f if {
	input.block.type == "aws_db_instance"
	is_string(input.block.config.password)
	not input.block.config.manage_master_user_password == true
	message := sprintf("RDS instance %s has a hard-coded master password", [input.block.address])
	f := finding.at("TF_005", message, "/password")
}
