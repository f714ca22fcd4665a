//! CSS colours as inline styles write them, normalised to RGB so that
//! `#fff`, `#FFFFFF`, `white` and `rgb(255, 255, 255)` compare equal.

/// An opaque colour.
pub(super) type Rgb = [u8; 3];

/// What a colour value paints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Paint {
    /// An opaque (or partly transparent, taken as opaque) colour.
    Color(Rgb),
    /// `transparent`, or an alpha of zero.
    Transparent,
}

/// The named colours mail templates use (CSS names, lower case).
const NAMED: [(&str, Rgb); 20] = [
    ("white", [255, 255, 255]),
    ("black", [0, 0, 0]),
    ("red", [255, 0, 0]),
    ("green", [0, 128, 0]),
    ("blue", [0, 0, 255]),
    ("yellow", [255, 255, 0]),
    ("gray", [128, 128, 128]),
    ("grey", [128, 128, 128]),
    ("silver", [192, 192, 192]),
    ("whitesmoke", [245, 245, 245]),
    ("snow", [255, 250, 250]),
    ("ivory", [255, 255, 240]),
    ("navy", [0, 0, 128]),
    ("maroon", [128, 0, 0]),
    ("orange", [255, 165, 0]),
    ("purple", [128, 0, 128]),
    ("lightgray", [211, 211, 211]),
    ("lightgrey", [211, 211, 211]),
    ("darkgray", [169, 169, 169]),
    ("darkgrey", [169, 169, 169]),
];

/// A colour value (`#rgb`, `#rgba`, `#rrggbb`, `#rrggbbaa`, `rgb()`/`rgba()`
/// with commas or spaces, a common name, `transparent`); `None` when it is
/// none of these.
pub(super) fn parse_color(value: &str) -> Option<Paint> {
    let v = value.trim();
    if v.eq_ignore_ascii_case("transparent") {
        return Some(Paint::Transparent);
    }
    if let Some(hex) = v.strip_prefix('#') {
        return parse_hex(hex);
    }
    if let Some((_, rgb)) = NAMED.iter().find(|(n, _)| v.eq_ignore_ascii_case(n)) {
        return Some(Paint::Color(*rgb));
    }
    let open = v.find('(')?;
    let func = &v[..open];
    if !(func.eq_ignore_ascii_case("rgb") || func.eq_ignore_ascii_case("rgba")) {
        return None;
    }
    let args = v[open + 1..].strip_suffix(')')?;
    let mut parts = args
        .split(|c: char| c == ',' || c == '/' || c.is_whitespace())
        .filter(|p| !p.is_empty());
    let mut rgb = [0u8; 3];
    for channel in &mut rgb {
        *channel = channel_value(parts.next()?)?;
    }
    let alpha = match parts.next() {
        Some(a) => match a.strip_suffix('%') {
            Some(p) => p.trim().parse::<f64>().ok()? / 100.0,
            None => a.trim().parse::<f64>().ok()?,
        },
        None => 1.0,
    };
    Some(if alpha <= 0.0 {
        Paint::Transparent
    } else {
        Paint::Color(rgb)
    })
}

fn channel_value(text: &str) -> Option<u8> {
    let (n, scale) = match text.strip_suffix('%') {
        Some(p) => (p.trim().parse::<f64>().ok()?, 255.0 / 100.0),
        None => (text.trim().parse::<f64>().ok()?, 1.0),
    };
    // Clamped to 0..=255 before the cast.
    n.is_finite()
        .then(|| (n * scale).round().clamp(0.0, 255.0) as u8)
}

fn parse_hex(hex: &str) -> Option<Paint> {
    let digit = |i: usize| {
        hex.as_bytes()
            .get(i)
            .and_then(|b| (*b as char).to_digit(16))
            .map(|d| d as u8)
    };
    let (rgb, alpha) = match hex.len() {
        3 | 4 => {
            let mut rgb = [0u8; 3];
            for (i, c) in rgb.iter_mut().enumerate() {
                *c = digit(i)? * 17;
            }
            let alpha = if hex.len() == 4 { digit(3)? * 17 } else { 255 };
            (rgb, alpha)
        }
        6 | 8 => {
            let byte = |i: usize| Some(digit(2 * i)? * 16 + digit(2 * i + 1)?);
            let rgb = [byte(0)?, byte(1)?, byte(2)?];
            let alpha = if hex.len() == 8 { byte(3)? } else { 255 };
            (rgb, alpha)
        }
        _ => return None,
    };
    Some(if alpha == 0 {
        Paint::Transparent
    } else {
        Paint::Color(rgb)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn spellings_of_white_compare_equal() {
        let white = Some(Paint::Color([255, 255, 255]));
        for v in [
            "#fff",
            "#FFFFFF",
            "white",
            "WHITE",
            "rgb(255,255,255)",
            "rgb(255 255 255)",
            "rgba(255, 255, 255, 1)",
            "rgb(100%, 100%, 100%)",
            "#ffff",
        ] {
            assert_eq!(parse_color(v), white, "{v}");
        }
        assert_eq!(parse_color("rgba(0,0,0,0)"), Some(Paint::Transparent));
        assert_eq!(parse_color("#ffffff00"), Some(Paint::Transparent));
        assert_eq!(parse_color("#fffffe"), Some(Paint::Color([255, 255, 254])));
        assert_eq!(parse_color("hsl(0, 0%, 100%)"), None);
        assert_eq!(parse_color("#ggg"), None);
    }
}
