# What TF_002 and TF_003 need to know about the bucket under evaluation.
#
# Rules over input.block, in a package of their own: regorus evaluates every
# rule of a package whenever one of them is referenced, so keeping them in
# sv.lib.tf would make every block of every file pay for the S3 lookups
# (quadratic in the number of blocks).
package sv.lib.tf_s3

import data.sv.lib.tf

# TF_002: an aws_s3_bucket_versioning for the bucket with status Enabled.
companion_versioning if tf.companion_value("aws_s3_bucket_versioning", "versioning_configuration/status", "Enabled")

# TF_003: why the bucket under evaluation is public (a set of reasons).
public_acls := {"public-read", "public-read-write"}

public_access_flags := ["block_public_acls", "block_public_policy", "ignore_public_acls", "restrict_public_buckets"]

public_reasons contains sprintf("its acl is %s", [input.block.config.acl]) if {
	input.block.config.acl in public_acls
}

public_reasons contains "its acl cannot be evaluated" if tf.unknown(input.block.config.acl)

public_reasons contains sprintf("an aws_s3_bucket_acl grants %s", [acl]) if {
	some acl in public_acls
	tf.companion_value("aws_s3_bucket_acl", "acl", acl)
}

public_reasons contains "an aws_s3_bucket_acl's acl cannot be evaluated" if {
	tf.companion_unknown("aws_s3_bucket_acl", "acl")
}

# A flag written `false` (or "false"); an unset flag is not judged (it
# defaults to false in the provider, but the rule is about explicit
# opt-outs).
public_reasons contains sprintf("its public access block sets %s = false", [flag]) if {
	some flag in public_access_flags
	tf.companion_value("aws_s3_bucket_public_access_block", flag, "false")
}

public_reasons contains sprintf("its public access block's %s cannot be evaluated", [flag]) if {
	some flag in public_access_flags
	tf.companion_unknown("aws_s3_bucket_public_access_block", flag)
}

# Why an aws_s3_bucket_acl (`c`, a config) makes its bucket public, and why
# an aws_s3_bucket_public_access_block does: for companions whose bucket
# cannot be evaluated (reported on the companion itself).
acl_reasons(c) := {reason |
	c.acl in public_acls
	reason := sprintf("an aws_s3_bucket_acl grants %s", [c.acl])
} | {"an aws_s3_bucket_acl's acl cannot be evaluated" | tf.unknown(c.acl)}

access_block_reasons(c) := {reason |
	some flag in public_access_flags
	tf.is_false(c[flag])
	reason := sprintf("its public access block sets %s = false", [flag])
} | {reason |
	some flag in public_access_flags
	tf.unknown(c[flag])
	reason := sprintf("its public access block's %s cannot be evaluated", [flag])
}

# TF_003's line: the bucket's own public acl when it has one.
default public_path := ""

public_path := "/acl" if input.block.config.acl in public_acls

public_path := "/acl" if tf.unknown(input.block.config.acl)

