//! Secure Terraform baselines and their mutation operators (spec E2 §8.3):
//! S3 bucket (encryption, versioning, private ACL, public-access block),
//! narrow security group, encrypted RDS with a managed password,
//! least-privilege IAM, variables without secret defaults.

use super::hcl::{attr, block, lit, Block, HclStyle, H};
use super::rng::GenRng;

/// Primary families, in catalogue order.
pub const FAMILIES: [&str; 4] = ["s3", "sg", "rds", "iam"];

const PROJECTS: [&str; 10] = [
    "acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka", "tyrell",
    "soylent",
];
const PURPOSES: [&str; 8] = [
    "logs",
    "assets",
    "backups",
    "reports",
    "uploads",
    "artifacts",
    "exports",
    "media",
];
const ENVS: [&str; 3] = ["prod", "staging", "dev"];
const REGIONS: [&str; 4] = ["eu-west-1", "us-east-1", "eu-central-1", "ap-southeast-2"];

/// A drafted Terraform module.
#[derive(Debug, Clone)]
pub struct TfDraft {
    /// Baseline name (`s3`, `s3+iam`, …).
    pub family: String,
    /// Top-level blocks in file order.
    pub blocks: Vec<Block>,
    /// Formatting variant.
    pub style: HclStyle,
    /// Project prefix of names.
    pub project: String,
}

impl TfDraft {
    /// The rendered module.
    pub fn render(&self) -> String {
        super::hcl::emit(&self.blocks, &self.style)
    }

    fn resource_mut(&mut self, ty: &str) -> Option<&mut Block> {
        self.blocks
            .iter_mut()
            .find(|b| b.ty == "resource" && b.labels.first().map(String::as_str) == Some(ty))
    }

    fn remove_resource(&mut self, ty: &str) -> bool {
        let before = self.blocks.len();
        self.blocks
            .retain(|b| !(b.ty == "resource" && b.labels.first().map(String::as_str) == Some(ty)));
        before != self.blocks.len()
    }
}

/// Draws a baseline: variables, a primary family and, sometimes, a second.
pub fn draft(rng: &mut GenRng, primary: &'static str) -> TfDraft {
    let project = (*rng.pick(&PROJECTS)).to_string();
    let env = *rng.pick(&ENVS);
    let style = HclStyle {
        align: rng.chance(3, 4),
        indent: 2,
    };
    let mut families = vec![primary];
    if rng.chance(2, 5) {
        let second = *rng.pick(&FAMILIES);
        if second != primary {
            families.push(second);
        }
    }
    let mut blocks = variables(rng, env);
    for f in &families {
        match *f {
            "s3" => blocks.extend(s3(rng, &project, env)),
            "sg" => blocks.extend(sg(rng, &project)),
            "rds" => blocks.extend(rds(rng, &project, env)),
            _ => blocks.extend(iam(rng, &project, env)),
        }
    }
    TfDraft {
        family: families.join("+"),
        blocks,
        style,
        project,
    }
}

fn variables(rng: &mut GenRng, env: &str) -> Vec<Block> {
    let region = *rng.pick(&REGIONS);
    let mut out = vec![block(
        "variable",
        &["region"],
        vec![attr("type", "string"), attr("default", lit(region))],
    )];
    if rng.chance(1, 2) {
        out.push(block(
            "variable",
            &["environment"],
            vec![
                attr("type", "string"),
                attr("description", lit("Deployment stage")),
                attr("default", lit(env)),
            ],
        ));
    }
    if rng.chance(1, 3) {
        out.push(block(
            "variable",
            &["tags"],
            vec![attr("type", "map(string)"), attr("default", "{}")],
        ));
    }
    out
}

fn tags(project: &str, env: &str) -> String {
    format!(
        "{{\n  Project     = {}\n  Environment = {}\n}}",
        lit(project),
        lit(env)
    )
}

fn s3(rng: &mut GenRng, project: &str, env: &str) -> Vec<Block> {
    let name = *rng.pick(&PURPOSES);
    let bucket = format!("{project}-{name}-{env}-{}", rng.hex(4));
    let r = format!("aws_s3_bucket.{name}.id");
    let mut body = vec![attr("bucket", lit(&bucket))];
    if rng.chance(1, 2) {
        body.push(attr("tags", tags(project, env)));
    }
    let mut out = vec![block("resource", &["aws_s3_bucket", name], body)];
    let algo = if rng.chance(1, 2) {
        vec![attr("sse_algorithm", lit("AES256"))]
    } else {
        vec![
            attr("sse_algorithm", lit("aws:kms")),
            attr("kms_master_key_id", lit(&format!("alias/{project}-s3"))),
        ]
    };
    out.push(block(
        "resource",
        &["aws_s3_bucket_server_side_encryption_configuration", name],
        vec![
            attr("bucket", &r),
            H::Block(block(
                "rule",
                &[],
                vec![H::Block(block(
                    "apply_server_side_encryption_by_default",
                    &[],
                    algo,
                ))],
            )),
        ],
    ));
    out.push(block(
        "resource",
        &["aws_s3_bucket_versioning", name],
        vec![
            attr("bucket", &r),
            H::Block(block(
                "versioning_configuration",
                &[],
                vec![attr("status", lit("Enabled"))],
            )),
        ],
    ));
    out.push(block(
        "resource",
        &["aws_s3_bucket_acl", name],
        vec![attr("bucket", &r), attr("acl", lit("private"))],
    ));
    out.push(block(
        "resource",
        &["aws_s3_bucket_public_access_block", name],
        vec![
            attr("bucket", &r),
            attr("block_public_acls", "true"),
            attr("block_public_policy", "true"),
            attr("ignore_public_acls", "true"),
            attr("restrict_public_buckets", "true"),
        ],
    ));
    out
}

fn sg(rng: &mut GenRng, project: &str) -> Vec<Block> {
    let (port, what) = *rng.pick(&[
        (443u64, "https"),
        (5432, "postgres"),
        (6379, "redis"),
        (8080, "app"),
    ]);
    let cidr = *rng.pick(&[
        "10.0.0.0/8",
        "10.20.0.0/16",
        "172.16.0.0/12",
        "192.168.10.0/24",
    ]);
    vec![block(
        "resource",
        &["aws_security_group", what],
        vec![
            attr("name", lit(&format!("{project}-{what}"))),
            attr(
                "description",
                lit(&format!("{what} from the internal network")),
            ),
            attr("vpc_id", lit(&format!("vpc-{}", rng.hex(8)))),
            H::Block(block(
                "ingress",
                &[],
                vec![
                    attr("description", lit(&format!("{what} from internal"))),
                    attr("from_port", port.to_string()),
                    attr("to_port", port.to_string()),
                    attr("protocol", lit("tcp")),
                    attr("cidr_blocks", format!("[{}]", lit(cidr))),
                ],
            )),
            H::Block(block(
                "egress",
                &[],
                vec![
                    attr("from_port", "443"),
                    attr("to_port", "443"),
                    attr("protocol", lit("tcp")),
                    attr("cidr_blocks", format!("[{}]", lit(cidr))),
                ],
            )),
        ],
    )]
}

fn rds(rng: &mut GenRng, project: &str, env: &str) -> Vec<Block> {
    let (engine, version) = *rng.pick(&[
        ("postgres", "16.2"),
        ("mysql", "8.0.36"),
        ("mariadb", "10.11.6"),
    ]);
    let class = *rng.pick(&["db.t3.micro", "db.t3.medium", "db.r6g.large"]);
    let user = *rng.pick(&["app_admin", "dbadmin", "owner"]);
    let mut body = vec![
        attr("identifier", lit(&format!("{project}-{env}-db"))),
        attr("engine", lit(engine)),
        attr("engine_version", lit(version)),
        attr("instance_class", lit(class)),
        attr("allocated_storage", rng.int(20, 200).to_string()),
        attr("username", lit(user)),
        attr("manage_master_user_password", "true"),
        attr("storage_encrypted", "true"),
    ];
    if rng.chance(1, 2) {
        body.push(attr("kms_key_id", lit(&format!("alias/{project}-rds"))));
    }
    body.push(attr("backup_retention_period", rng.int(7, 35).to_string()));
    body.push(attr("deletion_protection", "true"));
    body.push(attr("skip_final_snapshot", "false"));
    vec![block("resource", &["aws_db_instance", "main"], body)]
}

fn iam(rng: &mut GenRng, project: &str, env: &str) -> Vec<Block> {
    let (actions, resource): (&[&str], String) = match rng.below(3) {
        0 => (
            &["s3:GetObject", "s3:ListBucket"],
            format!("arn:aws:s3:::{project}-{env}-data/*"),
        ),
        1 => (
            &["dynamodb:GetItem", "dynamodb:Query"],
            format!("arn:aws:dynamodb:eu-west-1:123456789012:table/{project}-{env}"),
        ),
        _ => (
            &["sqs:SendMessage"],
            format!("arn:aws:sqs:us-east-1:123456789012:{project}-{env}-events"),
        ),
    };
    let actions = actions
        .iter()
        .map(|a| lit(a))
        .collect::<Vec<_>>()
        .join(", ");
    let policy = format!(
        "jsonencode({{\n  Version = \"2012-10-17\"\n  Statement = [{{\n    Effect   = \"Allow\"\n    Action   = [{actions}]\n    Resource = [{}]\n  }}]\n}})",
        lit(&resource)
    );
    vec![block(
        "resource",
        &["aws_iam_policy", "app"],
        vec![
            attr("name", lit(&format!("{project}-{env}-app"))),
            attr(
                "description",
                lit("Least-privilege access for the application"),
            ),
            attr("policy", policy),
        ],
    )]
}

/// A Terraform operator.
#[derive(Debug)]
pub struct TfOperator {
    /// Name recorded in `meta.generator.mutations`.
    pub name: &'static str,
    /// The edit; `None` when not applicable.
    pub apply: fn(&mut TfDraft, &mut GenRng) -> Option<Vec<String>>,
}

/// Every Terraform operator, in table order.
pub const TF_OPERATORS: &[TfOperator] = &[
    TfOperator {
        name: "s3-no-encryption",
        apply: s3_no_encryption,
    },
    TfOperator {
        name: "s3-no-versioning",
        apply: s3_no_versioning,
    },
    TfOperator {
        name: "s3-public",
        apply: s3_public,
    },
    TfOperator {
        name: "rds-unencrypted",
        apply: rds_unencrypted,
    },
    TfOperator {
        name: "rds-literal-password",
        apply: rds_literal_password,
    },
    TfOperator {
        name: "sg-open-world",
        apply: sg_open_world,
    },
    TfOperator {
        name: "variable-secret-default",
        apply: variable_secret_default,
    },
    TfOperator {
        name: "iam-wildcard",
        apply: iam_wildcard,
    },
];

fn ids(rule: &str) -> Option<Vec<String>> {
    Some(vec![format!("opa/{rule}")])
}

fn s3_no_encryption(d: &mut TfDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    d.remove_resource("aws_s3_bucket_server_side_encryption_configuration")
        .then_some(())?;
    ids("TF_001")
}

fn s3_no_versioning(d: &mut TfDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    if rng.chance(1, 2) {
        d.remove_resource("aws_s3_bucket_versioning")
            .then_some(())?;
    } else {
        let v = d.resource_mut("aws_s3_bucket_versioning")?;
        let conf = v
            .blocks_mut("versioning_configuration")
            .into_iter()
            .next()?;
        conf.set("status", lit("Suspended"));
    }
    ids("TF_002")
}

fn s3_public(d: &mut TfDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    if rng.chance(1, 2) {
        let acl = d.resource_mut("aws_s3_bucket_acl")?;
        let acl_value = *rng.pick(&["public-read", "public-read-write"]);
        acl.set("acl", lit(acl_value));
    } else {
        let block = d.resource_mut("aws_s3_bucket_public_access_block")?;
        let flag = *rng.pick(&[
            "block_public_acls",
            "block_public_policy",
            "ignore_public_acls",
            "restrict_public_buckets",
        ]);
        block.set(flag, "false");
    }
    ids("TF_003")
}

fn rds_unencrypted(d: &mut TfDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let db = d.resource_mut("aws_db_instance")?;
    if rng.chance(1, 2) {
        db.set("storage_encrypted", "false");
    } else {
        db.remove("storage_encrypted");
    }
    db.remove("kms_key_id");
    ids("TF_004")
}

fn rds_literal_password(d: &mut TfDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let db = d.resource_mut("aws_db_instance")?;
    db.remove("manage_master_user_password").then_some(())?;
    let password = format!(
        "{}{}!",
        rng.pick(&["Winter", "Passw0rd", "Admin", "Spring"]),
        rng.int(2019, 2025)
    );
    db.set("password", lit(&password));
    ids("TF_005")
}

fn sg_open_world(d: &mut TfDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let sg = d.resource_mut("aws_security_group")?;
    let ingress = sg.blocks_mut("ingress").into_iter().next()?;
    let (from, to, proto) = *rng.pick(&[
        ("0", "0", "\"-1\""),
        ("0", "65535", "\"tcp\""),
        ("0", "0", "\"all\""),
    ]);
    ingress.set("from_port", from);
    ingress.set("to_port", to);
    ingress.set("protocol", proto);
    let cidr = if rng.chance(3, 4) {
        "[\"0.0.0.0/0\"]"
    } else {
        "[\"0.0.0.0/0\", \"::/0\"]"
    };
    ingress.set("cidr_blocks", cidr);
    ids("TF_006")
}

fn variable_secret_default(d: &mut TfDraft, rng: &mut GenRng) -> Option<Vec<String>> {
    let (name, value) = match rng.below(3) {
        0 => (
            "db_password",
            format!(
                "{}{}",
                rng.pick(&["hunter", "s3cret", "changeme"]),
                rng.int(10, 99)
            ),
        ),
        1 => ("api_token", rng.hex(32)),
        _ => (
            "aws_access_key",
            format!("AKIA{}", rng.hex(16).to_uppercase()),
        ),
    };
    let at = d
        .blocks
        .iter()
        .rposition(|b| b.ty == "variable")
        .map_or(0, |i| i + 1);
    d.blocks.insert(
        at,
        block(
            "variable",
            &[name],
            vec![attr("type", "string"), attr("default", lit(&value))],
        ),
    );
    ids("TF_007")
}

fn iam_wildcard(d: &mut TfDraft, _rng: &mut GenRng) -> Option<Vec<String>> {
    let policy = d.resource_mut("aws_iam_policy")?;
    let old = policy.attr("policy")?.to_string();
    let mut lines: Vec<String> = old.lines().map(str::to_string).collect();
    for l in &mut lines {
        if l.trim_start().starts_with("Action") {
            *l = "    Action   = \"*\"".to_string();
        } else if l.trim_start().starts_with("Resource") {
            *l = "    Resource = \"*\"".to_string();
        }
    }
    policy.set("policy", lines.join("\n"));
    ids("TF_008")
}
