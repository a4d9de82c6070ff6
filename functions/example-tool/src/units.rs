//! The static unit table: every unit as a factor and offset to its dimension's base unit
//! (metre, kilogram, litre, kelvin).

use bedrock_action_group::ToolError;

/// One unit: `base = value * factor + offset`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Unit {
    /// Canonical symbol.
    pub symbol: &'static str,
    /// `length`, `mass`, `volume` or `temperature`.
    pub dimension: &'static str,
    /// Multiplier to the base unit.
    pub factor: f64,
    /// Offset to the base unit (temperatures only).
    pub offset: f64,
}

const fn unit(symbol: &'static str, dimension: &'static str, factor: f64, offset: f64) -> Unit {
    Unit { symbol, dimension, factor, offset }
}

/// All known units.
pub const UNITS: &[Unit] = &[
    unit("m", "length", 1.0, 0.0),
    unit("km", "length", 1000.0, 0.0),
    unit("cm", "length", 0.01, 0.0),
    unit("mm", "length", 0.001, 0.0),
    unit("mi", "length", 1609.344, 0.0),
    unit("yd", "length", 0.9144, 0.0),
    unit("ft", "length", 0.3048, 0.0),
    unit("in", "length", 0.0254, 0.0),
    unit("kg", "mass", 1.0, 0.0),
    unit("g", "mass", 0.001, 0.0),
    unit("t", "mass", 1000.0, 0.0),
    unit("lb", "mass", 0.453_592_37, 0.0),
    unit("oz", "mass", 0.028_349_523_125, 0.0),
    unit("l", "volume", 1.0, 0.0),
    unit("ml", "volume", 0.001, 0.0),
    unit("gal", "volume", 3.785_411_784, 0.0),
    unit("K", "temperature", 1.0, 0.0),
    unit("C", "temperature", 1.0, 273.15),
    unit("F", "temperature", 5.0 / 9.0, 459.67 * 5.0 / 9.0),
];

/// The unit with this symbol, ignoring letter case.
pub fn find(symbol: &str) -> Option<Unit> {
    UNITS.iter().copied().find(|u| u.symbol.eq_ignore_ascii_case(symbol.trim()))
}

/// The REPROMPT error for an unknown unit in `parameter`.
pub fn unknown(parameter: &str, symbol: &str) -> ToolError {
    let known: Vec<&str> = UNITS.iter().map(|u| u.symbol).collect();
    ToolError::invalid(
        parameter,
        format!("unknown unit {symbol:?}; known units: {}", known.join(", ")),
    )
}
