#![doc = include_str!("../README.md")]

mod units;

use bedrock_action_group::{RuntimeError, ToolError};
use registry_guard::run_guarded;
use serde::{Deserialize, Serialize};

/// Arguments of the `convert` function (see `events/` for invocations).
#[derive(Debug, Deserialize)]
pub struct Convert {
    /// The quantity to convert.
    pub value: f64,
    /// Unit of `value`, e.g. `km`.
    pub from: String,
    /// Unit to convert to, e.g. `mi`.
    pub to: String,
    /// Decimal places to round to (default 4, at most 12).
    pub precision: Option<u32>,
}

/// The converted quantity, returned to the model as JSON.
#[derive(Debug, Serialize)]
pub struct Converted {
    /// The converted value, rounded.
    pub value: f64,
    /// The target unit.
    pub unit: String,
    /// What was converted: `length`, `mass`, `volume` or `temperature`.
    pub dimension: &'static str,
}

/// The tool handler.
pub fn convert(args: Convert) -> Result<Converted, ToolError> {
    let from = units::find(&args.from).ok_or_else(|| units::unknown("from", &args.from))?;
    let to = units::find(&args.to).ok_or_else(|| units::unknown("to", &args.to))?;
    if from.dimension != to.dimension {
        let msg = format!(
            "cannot convert {} to {}; use a {} unit",
            from.dimension, to.dimension, from.dimension
        );
        return Err(ToolError::invalid("to", msg));
    }
    let precision = args.precision.unwrap_or(4);
    if precision > 12 {
        return Err(ToolError::invalid("precision", "must be between 0 and 12"));
    }
    let base = args.value * from.factor + from.offset;
    if from.dimension == "temperature" && base < 0.0 {
        return Err(ToolError::reply(format!(
            "{} {} is below absolute zero",
            args.value, from.symbol
        )));
    }
    let scale = 10f64.powi(precision as i32);
    let value = (((base - to.offset) / to.factor) * scale).round() / scale;
    Ok(Converted { value, unit: to.symbol.to_string(), dimension: to.dimension })
}

/// Serves `convert` behind the registry's call-time guard: each call is checked against
/// the tool's call rules for the session's signed principal before `convert` runs.
#[tokio::main]
async fn main() -> Result<(), RuntimeError> {
    run_guarded(convert).await
}

#[cfg(test)]
mod tests;
