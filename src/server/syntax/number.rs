//! The one rule for numbers in commands: plain decimals, as Minecraft's
//! command reader takes them.

/// A number as Minecraft's command reader takes it: only digits, `+`, `-`
/// and `.`, finite. `None` for anything else (`1e3`, `inf`, `NaN`, empty).
pub fn parse_plain_number(text: &str) -> Option<f64> {
    let plain = !text.is_empty()
        && text
            .bytes()
            .all(|b| b.is_ascii_digit() || b"+-.".contains(&b));
    if !plain {
        return None;
    }
    text.parse::<f64>().ok().filter(|v| v.is_finite())
}

/// A controller parameter's value as a command writes it: a plain number,
/// `true` (1) or `false` (0).
pub fn parse_parameter_value(text: &str) -> Option<f32> {
    match text {
        "true" => Some(1.0),
        "false" => Some(0.0),
        number => parse_plain_number(number)
            .map(|v| v as f32)
            .filter(|v| v.is_finite()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_are_plain_decimals() {
        for (text, value) in [("3", 3.0), ("-2.5", -2.5), ("+.5", 0.5), ("1000", 1000.0)] {
            assert_eq!(parse_plain_number(text), Some(value), "{text}");
        }
        for text in ["", "1e3", "inf", "NaN", "1_000", "0x10", "1,5", "--"] {
            assert_eq!(parse_plain_number(text), None, "{text}");
        }
    }

    #[test]
    fn parameter_values_are_numbers_or_booleans() {
        assert_eq!(parse_parameter_value("true"), Some(1.0));
        assert_eq!(parse_parameter_value("false"), Some(0.0));
        assert_eq!(parse_parameter_value("-0.5"), Some(-0.5));
        assert_eq!(parse_parameter_value("yes"), None);
        assert_eq!(parse_parameter_value("1e40"), None);
    }
}
