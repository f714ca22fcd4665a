# Terraform helpers over the canonical input (spec E2 §1.7): `input.block`
# is the block under evaluation, `input.module` every resource, variable and
# (project extension) data source of the file, keyed by address.
#
# Values are arbitrary HCL: helpers check types before calling builtins,
# because regorus reports a builtin's type error as an evaluation error.
package sv.lib.tf

import data.sv.lib.finding

# The type part of a resource address (`aws_s3_bucket` of `aws_s3_bucket.b`).
# Indexed through a variable: regorus handles `split(…)[0]` (an index on a
# call) by building and discarding an error each time, which cost more than
# the rest of a bucket's evaluation.
resource_type(address) := type if {
	parts := split(address, ".")
	type := parts[0]
}

# Nested blocks (always arrays of objects in the canonical shape) or an
# attribute holding a list of objects, e.g. `ingress = [{…}]`.
blocks(config, name) := [b | some b in config[name]; is_object(b)] if is_array(config[name])

# The same blocks keyed by their index in `config[name]` (the index of
# their JSON Pointer).
indexed_blocks(config, name) := {i: b | some i, b in config[name]; is_object(b)} if is_array(config[name])

# Whether `value` refers to the resource at `address`: a non-literal whose
# refs include the address itself or any attribute/index of it
# (`aws_s3_bucket.b.id`, `aws_s3_bucket.b[0].id`).
refers_to(value, address) if {
	is_object(value)
	refs := value.refs
	is_array(refs)
	some ref in refs
	is_string(ref)
	refers_exactly(ref, address)
}

refers_exactly(ref, address) if ref == address

refers_exactly(ref, address) if startswith(ref, concat("", [address, "."]))

refers_exactly(ref, address) if startswith(ref, concat("", [address, "["]))

# The configs of the `type` resources that belong to the bucket under
# evaluation (each bucket is judged by its own companions; upstream let one
# encrypted bucket hide all the others): those whose `bucket` argument refers
# to it, or is the same literal bucket name. Read from the module's index
# (built once per file by the host, keyed by name and then by type) —
# walking `input.module.resources`, or every resource sharing the bucket's
# name, from every block would cost blocks × resources.
companions(type) := [config |
	some address in companion_addresses(input.block, type)
	config := input.module.resources[address]
	is_object(config)
]

companion_addresses(block, type) := referrers | named if {
	referrers := {a | some a in input.module.index.bucket_referrers[block.address][type]}
	named := {a |
		name := block.config.bucket
		is_string(name)
		some a in input.module.index.bucket_names[name][type]
	}
}

# Whether a companion of `type` for the bucket under evaluation exists, and
# the values its arguments take (`field` is `acl` or
# `versioning_configuration/status`; `text` a string, or a boolean as text).
has_companion(type) if count(input.module.index.bucket_referrers[input.block.address][type]) > 0

has_companion(type) if {
	name := input.block.config.bucket
	is_string(name)
	count(input.module.index.bucket_names[name][type]) > 0
}

# Companions by reference are read one by one (each is a pair of the
# index, read by its one bucket); companions by name from the summary of
# every companion of that name (shared by every bucket of the name).
companion_value(type, field, text) if {
	some address in input.module.index.bucket_referrers[input.block.address][type]
	has_text(input.module.resources[address], field, text)
}

companion_value(type, field, text) if {
	name := input.block.config.bucket
	is_string(name)
	input.module.index.name_fields[name][type].values[field][text]
}

companion_unknown(type, field) if {
	some address in input.module.index.bucket_referrers[input.block.address][type]
	has_unknown(input.module.resources[address], field)
}

companion_unknown(type, field) if {
	name := input.block.config.bucket
	is_string(name)
	input.module.index.name_fields[name][type].unknown[field]
}

# Whether a companion's `field` (an argument, or `block/argument` of a
# nested block) has the text `text` (a string, or a boolean as text), as the
# index's `name_fields` records it.
has_text(config, field, text) if {
	not contains(field, "/")
	as_text(config[field]) == text
}

has_text(config, field, text) if {
	parts := split(field, "/")
	count(parts) == 2
	block_name := parts[0]
	argument := parts[1]
	some b in blocks(config, block_name)
	as_text(b[argument]) == text
}

has_unknown(config, field) if {
	not contains(field, "/")
	unknown(config[field])
}

has_unknown(config, field) if {
	parts := split(field, "/")
	count(parts) == 2
	block_name := parts[0]
	argument := parts[1]
	some b in blocks(config, block_name)
	unknown(b[argument])
}

as_text(value) := value if is_string(value)

as_text(value) := "true" if value == true

as_text(value) := "false" if value == false

# A value the host could not evaluate although the file fixes it (a function
# it does not implement, a template directive…). Checks judge it as the
# worst value the field could hold: rewriting a flagged literal into such an
# expression must not make the finding disappear.
unknown(value) if {
	is_object(value)
	value.unknown == true
}

# Terraform converts the strings "true" and "false" to bool arguments.
is_true(value) if value == true

is_true(value) if value == "true"

is_false(value) if value == false

is_false(value) if value == "false"

# `/key` when config has `key`, else "" (the block's own line).
path_if_present(config, key) := concat("", ["/", finding.token(key)]) if _ = config[key]

path_if_present(config, key) := "" if not has_key(config, key)

has_key(config, key) if _ = config[key]

# Whether a port value is `n` (a number, or its decimal text).
port_is(value, n) if value == n

port_is(value, n) if {
	is_string(value)
	value == format_int(n, 10)
}

# Protocol "all": -1 (number or text) or "all" in any case.
all_protocols(protocol) if protocol == -1

all_protocols(protocol) if {
	is_string(protocol)
	lower(protocol) in {"-1", "all"}
}

all_protocols(protocol) if unknown(protocol)

# TF_006: an ingress rule (one block or one rule resource) that opens
# everything to the internet. Source and ports are read from the same rule;
# `pointer` is the rule's JSON Pointer in the block's config ("" for a rule
# resource).
open_ingress(rule, pointer, cidr4_key, cidr6_key, protocol_key) if {
	open_source(pointer, cidr4_key, cidr6_key)
	all_ports(rule, protocol_key)
}

# The host's index says which worlds each cidr argument's ranges cover
# together (`["0.0.0.0/1", "128.0.0.0/1"]` covers 0.0.0.0/0; an unknown
# element covers both).
open_source(pointer, cidr4_key, _) if "0.0.0.0/0" in covered(concat("/", [pointer, cidr4_key]))

open_source(pointer, _, cidr6_key) if "::/0" in covered(concat("/", [pointer, cidr6_key]))

covered(pointer) := input.module.index.world_cidrs[input.block.address][pointer]

all_ports(rule, protocol_key) if all_protocols(rule[protocol_key])

all_ports(rule, _) if {
	port_or_unknown(rule.from_port, 0)
	some to in [0, 65535]
	port_or_unknown(rule.to_port, to)
}

port_or_unknown(value, n) if port_is(value, n)

port_or_unknown(value, _) if unknown(value)

# TF_008: IAM statements in one common shape {Effect, Action, Resource}.
# A `policy` argument that is JSON text (a heredoc, or jsonencode of a
# literal, which the host has already encoded).
policy_statements(policy) := statements if {
	is_string(policy)
	json.is_valid(policy)
	document := json.unmarshal(policy)
	is_object(document)
	statements := as_list(document.Statement)
}

# A `policy` argument the host could not evaluate: judged as the worst
# document, one statement allowing everything.
policy_statements(policy) := [{"Effect": "Allow", "Action": "*", "Resource": "*"}] if unknown(policy)

# A `policy` argument that refers to an aws_iam_policy_document data source
# (`data.aws_iam_policy_document.x.json`): its `statement` blocks, whose
# `effect` defaults to Allow. (TF_008 reads the index's `open_statements`
# instead: walking the document from every policy that refers to it costs
# policies × statements.)
document_statements(policy) := statements if {
	not is_string(policy)
	not unknown(policy)
	statements := [s |
		some address in referenced(policy)
		startswith(address, "data.aws_iam_policy_document.")
		document := input.module.data[address]
		some block in blocks(document, "statement")
		s := {
			"Effect": object.get(block, "effect", "Allow"),
			"Action": object.get(block, "actions", []),
			"Resource": object.get(block, "resources", []),
		}
	]
}

# The addresses a non-literal value refers to (as `refers_to` decides, read
# from the module's index instead of tried against every address).
referenced(value) := {address |
	is_object(value)
	refs := value.refs
	is_array(refs)
	some ref in refs
	is_string(ref)
	some address in input.module.index.ref_targets[ref]
}

as_list(x) := x if is_array(x)

as_list(x) := [x] if is_object(x)

# An Allow statement with Action `*` on Resource `*` (each a string or a
# list); a part the host could not evaluate is judged at its worst.
allows_everything(statement) if {
	is_object(statement)
	allow(statement.Effect)
	wildcard(statement.Action)
	wildcard(statement.Resource)
}

allow(effect) if effect == "Allow"

allow(effect) if unknown(effect)

wildcard(value) if value == "*"

wildcard(value) if unknown(value)

wildcard(value) if {
	is_array(value)
	some item in value
	wildcard_item(item)
}

wildcard_item(item) if item == "*"

wildcard_item(item) if unknown(item)

# Whether `config` has at least one `name` block.
has_blocks(config, name) if count(blocks(config, name)) > 0

# TF_002: `versioning { enabled = true }` on the bucket itself.
inline_versioning(config) if {
	some v in blocks(config, "versioning")
	is_true(v.enabled)
}

# TF_008: a `policy` argument referring to an aws_iam_policy_document data
# source with a statement allowing everything (judged once per document by
# the host, as `allows_everything` judges a statement).
refers_to_open_document(policy) if {
	some address in referenced(policy)
	startswith(address, "data.aws_iam_policy_document.")
	input.module.index.open_statements[address]
}

# TF_008: resources whose `policy` argument is an IAM policy document: JSON
# text (heredoc, or jsonencode of a literal) or a reference to an
# aws_iam_policy_document data source.
iam_policy_type(t) if t in {"aws_iam_policy", "aws_iam_role_policy", "aws_iam_user_policy", "aws_iam_group_policy"}
