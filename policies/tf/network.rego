# TF_006: ingress open to the internet on every port. Source, protocol and
# ports must all come from the *same* rule; upstream matched them across
# different ingress blocks and ignored the protocol.
package sv.tf

import data.sv.lib.finding
import data.sv.lib.tf

# Inline ingress blocks (or an `ingress = [...]` list) of a security group:
# one finding per open block.
deny contains f if {
	input.block.type == "aws_security_group"
	some i, rule in tf.indexed_blocks(input.block.config, "ingress")
	tf.open_ingress(rule, sprintf("/ingress/%d", [i]), "cidr_blocks", "ipv6_cidr_blocks", "protocol")
	message := sprintf("security group %s ingress #%d allows all ports from the internet", [input.block.address, i + 1])
	f := finding.at("TF_006", message, sprintf("/ingress/%d", [i]))
}

deny contains f if {
	input.block.type == "aws_security_group_rule"
	input.block.config.type == "ingress"
	tf.open_ingress(input.block.config, "", "cidr_blocks", "ipv6_cidr_blocks", "protocol")
	f := finding.at("TF_006", sprintf("security group rule %s allows all ports from the internet", [input.block.address]), "")
}

deny contains f if {
	input.block.type == "aws_vpc_security_group_ingress_rule"
	tf.open_ingress(input.block.config, "", "cidr_ipv4", "cidr_ipv6", "ip_protocol")
	f := finding.at("TF_006", sprintf("ingress rule %s allows all ports from the internet", [input.block.address]), "")
}
