//! A 3×5 pixel font for the sheet's labels, drawn by emoted: digits,
//! capital letters (small ones are drawn as capitals), the space and a
//! little punctuation. Any other character is drawn as `?`.

use super::image::{PixelRect, Rgba, RgbaImage};

/// A glyph's width in font pixels.
pub const GLYPH_WIDTH: u32 = 3;

/// A glyph's height in font pixels.
pub const GLYPH_HEIGHT: u32 = 5;

/// Font pixels between two glyphs.
const SPACING: u32 = 1;

/// The rows of a glyph, top first, `#` for ink.
fn glyph(c: char) -> [&'static str; 5] {
    match c.to_ascii_uppercase() {
        '0' => ["###", "#.#", "#.#", "#.#", "###"],
        '1' => [".#.", "##.", ".#.", ".#.", "###"],
        '2' => ["###", "..#", "###", "#..", "###"],
        '3' => ["###", "..#", ".##", "..#", "###"],
        '4' => ["#.#", "#.#", "###", "..#", "..#"],
        '5' => ["###", "#..", "###", "..#", "###"],
        '6' => ["###", "#..", "###", "#.#", "###"],
        '7' => ["###", "..#", "..#", ".#.", ".#."],
        '8' => ["###", "#.#", "###", "#.#", "###"],
        '9' => ["###", "#.#", "###", "..#", "###"],
        'A' => [".#.", "#.#", "###", "#.#", "#.#"],
        'B' => ["##.", "#.#", "##.", "#.#", "##."],
        'C' => [".##", "#..", "#..", "#..", ".##"],
        'D' => ["##.", "#.#", "#.#", "#.#", "##."],
        'E' => ["###", "#..", "##.", "#..", "###"],
        'F' => ["###", "#..", "##.", "#..", "#.."],
        'G' => [".##", "#..", "#.#", "#.#", ".##"],
        'H' => ["#.#", "#.#", "###", "#.#", "#.#"],
        'I' => ["###", ".#.", ".#.", ".#.", "###"],
        'J' => ["..#", "..#", "..#", "#.#", ".#."],
        'K' => ["#.#", "#.#", "##.", "#.#", "#.#"],
        'L' => ["#..", "#..", "#..", "#..", "###"],
        'M' => ["#.#", "###", "###", "#.#", "#.#"],
        'N' => ["##.", "#.#", "#.#", "#.#", "#.#"],
        'O' => [".#.", "#.#", "#.#", "#.#", ".#."],
        'P' => ["##.", "#.#", "##.", "#..", "#.."],
        'Q' => [".#.", "#.#", "#.#", "##.", ".##"],
        'R' => ["##.", "#.#", "##.", "#.#", "#.#"],
        'S' => [".##", "#..", ".#.", "..#", "##."],
        'T' => ["###", ".#.", ".#.", ".#.", ".#."],
        'U' => ["#.#", "#.#", "#.#", "#.#", "###"],
        'V' => ["#.#", "#.#", "#.#", "#.#", ".#."],
        'W' => ["#.#", "#.#", "###", "###", "#.#"],
        'X' => ["#.#", "#.#", ".#.", "#.#", "#.#"],
        'Y' => ["#.#", "#.#", ".#.", ".#.", ".#."],
        'Z' => ["###", "..#", ".#.", "#..", "###"],
        ' ' => ["...", "...", "...", "...", "..."],
        '-' => ["...", "...", "###", "...", "..."],
        '.' => ["...", "...", "...", "...", ".#."],
        ',' => ["...", "...", "...", ".#.", "#.."],
        ':' => ["...", ".#.", "...", ".#.", "..."],
        '=' => ["...", "###", "...", "###", "..."],
        '+' => ["...", ".#.", "###", ".#.", "..."],
        '/' => ["..#", "..#", ".#.", "#..", "#.."],
        '!' => [".#.", ".#.", ".#.", "...", ".#."],
        '_' => ["...", "...", "...", "...", "###"],
        '(' => ["..#", ".#.", ".#.", ".#.", "..#"],
        ')' => ["#..", ".#.", ".#.", ".#.", "#.."],
        '\'' => [".#.", ".#.", "...", "...", "..."],
        _ => ["##.", "..#", ".#.", "...", ".#."],
    }
}

/// The size of `text` drawn at `scale` screen pixels per font pixel.
pub fn text_size_px(text: &str, scale: u32) -> (u32, u32) {
    let count = text.chars().count() as u32;
    let width = (count * (GLYPH_WIDTH + SPACING)).saturating_sub(SPACING);
    (width * scale, GLYPH_HEIGHT * scale)
}

/// Draws `text` with its top left corner at `(x_px, y_px)`, `scale`
/// screen pixels per font pixel, clipped to the picture.
pub fn draw_text(
    image: &mut RgbaImage,
    text: &str,
    x_px: i32,
    y_px: i32,
    scale: u32,
    colour: Rgba,
) {
    let step = ((GLYPH_WIDTH + SPACING) * scale) as i32;
    for (i, c) in text.chars().enumerate() {
        let left = x_px + i as i32 * step;
        for (row, bits) in glyph(c).iter().enumerate() {
            for (column, bit) in bits.chars().enumerate() {
                if bit == '#' {
                    let dot = PixelRect {
                        x_px: left + (column as u32 * scale) as i32,
                        y_px: y_px + (row as u32 * scale) as i32,
                        width_px: scale,
                        height_px: scale,
                    };
                    image.fill_rect(dot, colour);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn glyphs_are_three_by_five_and_mostly_distinct() {
        let chars: Vec<char> = ('0'..='9')
            .chain('A'..='Z')
            .chain(" -.,:=+/!_()'".chars())
            .collect();
        for (i, a) in chars.iter().enumerate() {
            assert!(glyph(*a).iter().all(|row| row.len() == 3), "{a}");
            for b in &chars[i + 1..] {
                assert_ne!(glyph(*a), glyph(*b), "{a} and {b}");
            }
        }
        assert_eq!(glyph('q'), glyph('Q'));
    }

    #[test]
    fn text_is_drawn_where_its_size_says() {
        let mut image = RgbaImage::new(20, 12, [0, 0, 0, 255]);
        let white = [255, 255, 255, 255];
        draw_text(&mut image, "T1", 1, 1, 2, white);
        assert_eq!(text_size_px("T1", 2), (14, 10));
        let inked: Vec<(i32, i32)> = (0..12)
            .flat_map(|y| (0..20).map(move |x| (x, y)))
            .filter(|(x, y)| image.pixel(*x, *y) == Some(white))
            .collect();
        let (min_x, max_x) = (
            inked.iter().map(|p| p.0).min(),
            inked.iter().map(|p| p.0).max(),
        );
        let (min_y, max_y) = (
            inked.iter().map(|p| p.1).min(),
            inked.iter().map(|p| p.1).max(),
        );
        assert_eq!(
            (min_x, max_x, min_y, max_y),
            (Some(1), Some(14), Some(1), Some(10))
        );
    }
}
