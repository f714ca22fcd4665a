//! Bounded replacements for builtins that allocate before the execution
//! timer can look.
//!
//! regorus' `numbers.range` and `numbers.range_step` reserve the whole result
//! up front, so `numbers.range(0, 1e12)` exhausts memory (and aborts) inside a
//! single builtin call, out of the timer's reach. Extensions are looked up
//! before builtins, so these same-named extensions take their place and refuse
//! results longer than [`MAX_RANGE_ELEMENTS`].

use anyhow::{bail, Result};
use regorus::Value;

/// Most elements a range builtin may produce.
pub const MAX_RANGE_ELEMENTS: i64 = 1_000_000;

/// Installs the bounded builtins into `engine`.
pub(super) fn install(engine: &mut regorus::Engine) -> Result<()> {
    engine.add_extension(
        "numbers.range".to_owned(),
        2,
        Box::new(|args: Vec<Value>| {
            let (a, b) = (
                int_arg(&args, 0, "numbers.range")?,
                int_arg(&args, 1, "numbers.range")?,
            );
            range(a, b, 1, "numbers.range")
        }),
    )?;
    engine.add_extension(
        "numbers.range_step".to_owned(),
        3,
        Box::new(|args: Vec<Value>| {
            let name = "numbers.range_step";
            let (a, b, step) = (
                int_arg(&args, 0, name)?,
                int_arg(&args, 1, name)?,
                int_arg(&args, 2, name)?,
            );
            if step <= 0 {
                bail!("{name}: step must be a positive integer");
            }
            range(a, b, step, name)
        }),
    )?;
    Ok(())
}

fn int_arg(args: &[Value], i: usize, name: &str) -> Result<i64> {
    match args.get(i) {
        Some(Value::Number(n)) => match n.as_i64() {
            Some(v) if n.is_integer() => Ok(v),
            _ => bail!("{name}: operand {} must be an integer", i + 1),
        },
        _ => bail!("{name}: operand {} must be a number", i + 1),
    }
}

/// `a` to `b` inclusive in steps of `step` (towards `b`), as OPA defines it.
fn range(a: i64, b: i64, step: i64, name: &str) -> Result<Value> {
    let span = i128::from(b) - i128::from(a);
    let count = span.abs() / i128::from(step) + 1;
    if count > i128::from(MAX_RANGE_ELEMENTS) {
        bail!("{name}: {count} elements exceed the limit of {MAX_RANGE_ELEMENTS}");
    }
    let count = i64::try_from(count)?;
    let direction = if span < 0 { -step } else { step };
    let values: Vec<Value> = (0..count).map(|k| Value::from(a + k * direction)).collect();
    Ok(Value::from(values))
}
