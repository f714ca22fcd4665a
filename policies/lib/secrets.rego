# What counts as a secret, shared by K8S_005 (ConfigMap keys) and TF_007
# (variable names and defaults).
package sv.lib.secrets

# Names that announce a secret. Matched against key or variable *names*,
# unanchored: upstream matched substrings of values instead, so a value such
# as "tokenizer" fired while `DB_PASSWORD: x` did not.
secret_name(name) if {
	is_string(name)
	regex.match(`(?i)(passw(or)?d|secret|token|api[_-]?key|private[_-]?key|credential)`, name)
}

# A PEM private key header ("-----BEGIN RSA PRIVATE KEY-----" and friends).
private_key(value) if {
	is_string(value)
	regex.match(`-----BEGIN[A-Z0-9 ]*PRIVATE KEY`, value)
}

# An AWS access key id.
aws_access_key(value) if {
	is_string(value)
	regex.match(`AKIA[0-9A-Z]{16}`, value)
}

# A value that is itself a credential, whatever its name.
credential_value(value) if private_key(value)

credential_value(value) if aws_access_key(value)

# A value that carries something: not null and not the empty string.
non_empty(value) if {
	value != null
	value != ""
}
