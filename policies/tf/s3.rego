# S3 bucket rules. Each `aws_s3_bucket` is judged by its own configuration
# and the companion resources that name it (AWS provider v4+ moved
# encryption, versioning, ACLs and public access blocks into resources of
# their own). Upstream asked whether *any* bucket in the file was configured,
# so one good bucket hid every bad one.
package sv.tf

import data.sv.lib.finding
import data.sv.lib.tf
import data.sv.lib.tf_s3

# TF_001: no server-side encryption, inline or by companion.
deny contains f if {
	input.block.type == "aws_s3_bucket"
	not tf.has_blocks(input.block.config, "server_side_encryption_configuration")
	not tf.has_companion("aws_s3_bucket_server_side_encryption_configuration")
	message := sprintf("S3 bucket %s has no server-side encryption configuration", [input.block.address])
	f := finding.at("TF_001", message, "")
}

# TF_002: no versioning, inline or by companion.
deny contains f if {
	input.block.type == "aws_s3_bucket"
	not tf.inline_versioning(input.block.config)
	not tf_s3.companion_versioning
	message := sprintf("S3 bucket %s has no versioning enabled", [input.block.address])
	f := finding.at("TF_002", message, tf.path_if_present(input.block.config, "versioning"))
}

# TF_003: public ACL (inline or companion) or a public access block that
# opts out. One finding per bucket, naming every reason.
deny contains f if {
	input.block.type == "aws_s3_bucket"
	reasons := tf_s3.public_reasons
	count(reasons) > 0
	message := sprintf("S3 bucket %s is publicly accessible: %s", [input.block.address, concat("; ", sort(reasons))])
	f := finding.at("TF_003", message, tf_s3.public_path)
}

# TF_003 for a public acl or access-block opt-out whose `bucket` the host
# could not evaluate: it belongs to some bucket of the file, so the finding
# is reported on the companion itself.
deny contains f if {
	input.block.type == "aws_s3_bucket_acl"
	tf.unknown(input.block.config.bucket)
	reasons := tf_s3.acl_reasons(input.block.config)
	count(reasons) > 0
	message := sprintf("%s makes a bucket that cannot be evaluated publicly accessible: %s", [input.block.address, concat("; ", sort(reasons))])
	f := finding.at("TF_003", message, "/bucket")
}

deny contains f if {
	input.block.type == "aws_s3_bucket_public_access_block"
	tf.unknown(input.block.config.bucket)
	reasons := tf_s3.access_block_reasons(input.block.config)
	count(reasons) > 0
	message := sprintf("%s makes a bucket that cannot be evaluated publicly accessible: %s", [input.block.address, concat("; ", sort(reasons))])
	f := finding.at("TF_003", message, "/bucket")
}
