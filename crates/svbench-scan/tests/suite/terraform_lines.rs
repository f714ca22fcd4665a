//! Terraform model extensions for the opa namespace: `data` blocks in the
//! module view and the JSON Pointer → line map of each block.

use serde_json::json;
use svbench_scan::terraform::{parse_module, TfBlockType, TfError};

const TF: &str = r#"data "aws_iam_policy_document" "admin" {
  statement {
    actions   = ["*"]
    resources = ["*"]
  }
}

resource "aws_security_group" "sg" {
  name = "web"
  ingress {
    from_port = 0
  }
  ingress {
    cidr_blocks = [
      "10.0.0.0/8",
      "0.0.0.0/0",
    ]
  }
  tags = {
    "a/b" = "x"
    owner = "me"
  }
  dynamic "egress" {
    for_each = var.rules
    content {
      from_port = egress.value
    }
  }
}
"#;

#[test]
fn data_blocks_are_kept_apart_and_in_the_module_view() {
    let module = parse_module(TF).unwrap();
    // Data sources are not evaluated on their own.
    assert_eq!(module.blocks.len(), 1);
    assert_eq!(module.data_sources.len(), 1);
    let data = &module.data_sources[0];
    assert_eq!(data.block_type, TfBlockType::Data);
    assert_eq!(data.address, "data.aws_iam_policy_document.admin");
    assert_eq!(data.r#type.as_deref(), Some("aws_iam_policy_document"));
    assert_eq!(data.line, 1);
    let view = module.module_view();
    assert_eq!(
        view["data"],
        json!({"data.aws_iam_policy_document.admin": {
            "statement": [{"actions": ["*"], "resources": ["*"]}]
        }})
    );
    assert!(view["resources"]
        .as_object()
        .unwrap()
        .contains_key("aws_security_group.sg"));
    assert_eq!(module.policy_inputs("main.tf").len(), 1);
}

#[test]
fn data_blocks_need_two_labels_and_unique_addresses() {
    let one_label = parse_module("data \"x\" {\n}\n").unwrap_err();
    assert!(matches!(one_label, TfError::InvalidBlock { line: 1, .. }));
    let twice = parse_module("data \"t\" \"n\" {\n}\ndata \"t\" \"n\" {\n}\n").unwrap_err();
    assert!(matches!(twice, TfError::Duplicate { line: 3, .. }));
    // The same type and name as a resource is another address.
    let module = parse_module("data \"t\" \"n\" {\n}\nresource \"t\" \"n\" {\n}\n").unwrap();
    assert_eq!(module.blocks.len() + module.data_sources.len(), 2);
}

#[test]
fn pointers_map_to_the_lines_of_arguments_blocks_and_elements() {
    let module = parse_module(TF).unwrap();
    let sg = &module.blocks[0];
    let cases = [
        ("", 8),
        ("/name", 9),
        ("/ingress", 10),
        ("/ingress/0", 10),
        ("/ingress/0/from_port", 11),
        ("/ingress/1", 13),
        ("/ingress/1/cidr_blocks", 14),
        ("/ingress/1/cidr_blocks/1", 16),
        ("/tags/a~1b", 20),
        ("/tags/owner", 21),
        ("/dynamic/0/egress", 23),
        ("/dynamic/0/egress/content/0/from_port", 26),
        // Past what was recorded: the longest recorded prefix.
        ("/ingress/1/cidr_blocks/9", 14),
        ("/nothing/here", 8),
    ];
    for (pointer, line) in cases {
        assert_eq!(sg.line_of(pointer), line, "{pointer}");
    }
}
