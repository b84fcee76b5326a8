//! The contact sheet's layout: one column per tick, one row per view
//! ([`View::ALL`]: front, then side; then the emote camera's, when the
//! Animation writes its shots), square cells with a gap around each,
//! and a header band over the columns for their tick labels. Each cell
//! carries its view's name in its top left corner.
//!
//! ```text
//!  gap ┌ header: "tick 0" ┐ gap ┌ header: "tick 12" ┐ gap
//!  gap ┌──────────────────┐ gap ┌───────────────────┐ gap
//!      │ front            │     │ front             │
//!      └──────────────────┘     └───────────────────┘
//!  gap ┌──────────────────┐ gap ┌───────────────────┐ gap
//!      │ right side       │     │ right side        │
//!      └──────────────────┘     └───────────────────┘
//!  gap
//! ```

use super::camera::View;
use super::font::{draw_text, text_size_px, GLYPH_HEIGHT};
use super::image::{PixelRect, Rgba, RgbaImage};

/// The sheet's own background, between and around the cells.
pub const SHEET_BACKGROUND: Rgba = [0xfa, 0xfa, 0xfb, 255];

/// The colour of the tick and view labels.
const LABEL_INK: Rgba = [0x33, 0x36, 0x3d, 255];

/// Screen pixels per font pixel in the sheet's labels.
const LABEL_SCALE: u32 = 2;

/// Where everything on a sheet goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SheetLayout {
    columns: u32,
    rows: u32,
    cell_px: u32,
    gap_px: u32,
    header_px: u32,
}

impl SheetLayout {
    /// A sheet of `columns` ticks with square cells `cell_px` wide.
    pub fn new(columns: usize, cell_px: u32) -> SheetLayout {
        SheetLayout {
            columns: columns as u32,
            rows: View::ALL.len() as u32,
            cell_px,
            gap_px: 8,
            header_px: GLYPH_HEIGHT * LABEL_SCALE + 4,
        }
    }

    /// The same layout with the emote camera's row under the two views.
    pub fn with_camera_row(self) -> SheetLayout {
        SheetLayout {
            rows: View::ALL.len() as u32 + 1,
            ..self
        }
    }

    /// How many rows (views).
    pub fn row_count(&self) -> usize {
        self.rows as usize
    }

    /// How many columns (ticks).
    pub fn column_count(&self) -> usize {
        self.columns as usize
    }

    /// The side of a cell.
    pub fn cell_px(&self) -> u32 {
        self.cell_px
    }

    /// The sheet's width and height.
    pub fn size_px(&self) -> (u32, u32) {
        let rows = self.rows;
        (
            self.gap_px + self.columns * (self.cell_px + self.gap_px),
            self.gap_px + self.header_px + rows * (self.cell_px + self.gap_px),
        )
    }

    /// The cell of `column` (0-based) and `view`.
    pub fn cell_rect(&self, column: usize, view: View) -> PixelRect {
        let step = self.cell_px + self.gap_px;
        PixelRect {
            x_px: (self.gap_px + column as u32 * step) as i32,
            y_px: (self.gap_px + self.header_px + view.row() as u32 * step) as i32,
            width_px: self.cell_px,
            height_px: self.cell_px,
        }
    }

    /// The header band over `column`, where its tick label goes.
    pub fn header_rect(&self, column: usize) -> PixelRect {
        let cell = self.cell_rect(column, View::Front);
        PixelRect {
            y_px: self.gap_px as i32,
            height_px: self.header_px,
            ..cell
        }
    }

    /// An empty sheet of this layout.
    pub fn blank(&self) -> RgbaImage {
        let (width, height) = self.size_px();
        RgbaImage::new(width, height, SHEET_BACKGROUND)
    }
}

/// Writes `text` at the left of `column`'s header band.
pub fn label_column(sheet: &mut RgbaImage, layout: &SheetLayout, column: usize, text: &str) {
    let rect = layout.header_rect(column);
    let (_, height) = text_size_px(text, LABEL_SCALE);
    let top = rect.y_px + (rect.height_px as i32 - height as i32) / 2;
    draw_text(sheet, text, rect.x_px, top, LABEL_SCALE, LABEL_INK);
}

/// Puts a drawn cell in place and writes its view's name in its corner.
pub fn place_cell(
    sheet: &mut RgbaImage,
    layout: &SheetLayout,
    column: usize,
    view: View,
    cell: &RgbaImage,
) {
    let rect = layout.cell_rect(column, view);
    sheet.blit(cell, rect.x_px, rect.y_px);
    let inset = 2 * LABEL_SCALE as i32;
    draw_text(
        sheet,
        view.label(),
        rect.x_px + inset,
        rect.y_px + inset,
        LABEL_SCALE,
        LABEL_INK,
    );
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cells_tile_the_sheet_without_overlapping() {
        let layout = SheetLayout::new(3, 100);
        let (width, height) = layout.size_px();
        assert_eq!((width, height), (8 + 3 * 108, 8 + 14 + 2 * 108));
        let sheet = layout.blank().bounds();
        let mut cells = Vec::new();
        for column in 0..3 {
            assert!(
                layout.header_rect(column).intersection(&sheet) == Some(layout.header_rect(column))
            );
            for view in View::ALL {
                let cell = layout.cell_rect(column, view);
                assert_eq!(cell.intersection(&sheet), Some(cell), "inside the sheet");
                assert_eq!(cell.intersection(&layout.header_rect(column)), None);
                cells.push(cell);
            }
        }
        for (i, a) in cells.iter().enumerate() {
            for b in &cells[i + 1..] {
                assert_eq!(a.intersection(b), None, "{a:?} {b:?}");
            }
        }
        // The last cell ends one gap before the sheet's edges.
        let last = layout.cell_rect(2, View::Side);
        assert_eq!(
            (last.right_px() + 8, last.bottom_px() + 8),
            (width as i32, height as i32)
        );
    }
}
