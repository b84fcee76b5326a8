//! `emoted preview`: a contact sheet of an Animation at some ticks, drawn
//! in perspective from the front and the side, so an author can see an
//! emote without joining a server.
//!
//! # The model
//!
//! Data flows as everywhere else: the file is read and validated
//! ([`format`](crate::format)), compiled and sampled by the library
//! ([`library::sample::sample_ticks`](crate::library::sample::sample_ticks), exactly what `emoted sample`
//! prints), and the poses are drawn here. Nothing here names valence.
//!
//! 1. **Shapes** ([`scene`]): every display node becomes a box or a label
//!    in its node's frame. Skin-bound nodes (and any other `player_head`)
//!    are the skull's cube and its hat cube; other item displays a
//!    0.5-block cube centred on the node, coloured by the item's name;
//!    block displays the unit cube from the node's origin to (1, 1, 1),
//!    coloured by the block's name; text displays a label; anchors
//!    nothing. The exact boxes and why are in [`scene`].
//! 2. **Poses**: each column's tick is sampled once; a node is drawn when
//!    it is visible at that tick, at its composed matrix in its root's
//!    frame (every root at the origin, facing +Z).
//! 3. **Cameras** ([`camera`]): one pin-hole camera per view, the front
//!    (from +Z: the rig's right arm on the viewer's left) and the right
//!    side (from −X), both aimed from 12° above at one sphere that holds
//!    every tick's boxes. All columns share the two cameras, so a part that
//!    does not move keeps its pixels from column to column. An Animation
//!    that writes its camera shots (`metadata.emoted.camera`) gets a third
//!    row, what the player sees: each column from that tick's emote
//!    camera (as `emoted sample` flies it, the player at the origin facing
//!    +Z), with a vanilla client's 70° field of view.
//! 4. **Drawing** ([`draw`], [`raster`]): a floor of tiles at y = 0, then
//!    every face of every box as two triangles into a depth buffer (the
//!    nearer surface wins, whatever the order), lit by a fixed light; then
//!    the labels over everything.
//! 5. **Skin** ([`skin`]): each face of a skull reads its rectangle of the
//!    skin from the one skin table, [`pack::skin_uv`](crate::pack::skin_uv)
//!    (per slice, per layer, per face: base layer first, then the hat cube
//!    around it), for the rows the slicing rule
//!    ([`pack::slices`](crate::pack::slices)) gives the node, with the
//!    face's corners in the order vanilla lays a texture around a box
//!    ([`cuboid`]). So the preview, the pack's shader and its item models
//!    read the same texels. The skin is a PNG (`--skin`) or emoted's own
//!    Steve-like stand-in (not Mojang's texture).
//! 6. **Sheet** ([`sheet`]): columns are ticks, rows are views, with tick
//!    labels over the columns and the view's name in each cell, written
//!    with a small built-in font ([`font`]). PNG out (and in, for skins)
//!    goes through `lodepng` ([`image`]).
//!
//! Ticks past the duration hold the final pose, as in `emoted sample`; the
//! column's label then says `(end)`.

pub mod camera;
pub mod cuboid;
pub mod draw;
pub mod font;
pub mod image;
pub mod raster;
pub mod scene;
pub mod sheet;
pub mod skin;

use std::path::{Path, PathBuf};

use glam::{Affine3A, Vec3};

pub use camera::View;
pub use image::{PixelRect, PngError, RgbaImage};
pub use sheet::SheetLayout;
pub use skin::{Skin, SkinError};

use crate::anim::SampleError;
use crate::format::camera::CameraSetting;
use crate::format::{read_emote_file, AnimationFile, EmoteFile, Problem};
use crate::library::clips::read_clip_animation;
use crate::library::CompiledAnimation;
use crate::playback::camera::look_direction;
use crate::playback::camera::sample::sample_ticks_with_camera;
use crate::playback::live::sample::{LiveSampleError, SampleInputError, SampleInputs};
use camera::{Camera, Sphere};
use draw::{scene_points, CellPainter};
use scene::{node_shapes, sample_frames, DrawnNode, Frame};

/// The side of a cell unless asked otherwise, in pixels.
pub const DEFAULT_CELL_PX: u32 = 256;

/// The most ticks one sheet shows.
pub const MAX_TICKS: usize = 16;

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct PreviewOptions {
    /// The ticks after the start, one column each, in this order; empty
    /// for [`default_ticks`].
    pub ticks: Vec<u32>,
    /// Draw skin-bound arms slim (3 px wide).
    pub slim: bool,
    /// The seed of Molang randomness.
    pub seed: u64,
    /// The side of a cell, in pixels.
    pub cell_px: u32,
    /// The live inputs the solvers get (`--look`, `--reach`, `--path`).
    pub live: SampleInputs,
}

impl Default for PreviewOptions {
    fn default() -> Self {
        PreviewOptions {
            ticks: Vec::new(),
            slim: false,
            seed: 0,
            cell_px: DEFAULT_CELL_PX,
            live: SampleInputs::default(),
        }
    }
}

/// The ticks a sheet shows when none are given: 0, ¼, ½ and ¾ of the
/// duration (rounded down; repeats left out for very short Animations).
pub fn default_ticks(duration_ticks: u32) -> Vec<u32> {
    let mut ticks: Vec<u32> = (0..4).map(|q| duration_ticks * q / 4).collect();
    ticks.dedup();
    ticks
}

/// Why a sheet could not be drawn; each names the file it is about.
#[derive(Debug, thiserror::Error)]
pub enum PreviewError {
    /// The file does not read, validate or compile.
    #[error("{}", problem_lines(path, problems))]
    InvalidFile {
        /// The file.
        path: PathBuf,
        /// Its errors.
        problems: Vec<Problem>,
    },
    /// The file is a Sequence.
    #[error("{}: is a Sequence, and only an Animation can be previewed; preview one of the Animations it plays: {animations}", path.display())]
    Sequence {
        /// The file.
        path: PathBuf,
        /// The ids of the Animations it plays, comma-separated.
        animations: String,
    },
    /// The file is a controller.
    #[error("{}: is a controller, and only an Animation can be previewed; preview one of the Animations it plays ({animations}), or sample it with `emoted sample --param`", path.display())]
    Controller {
        /// The file.
        path: PathBuf,
        /// The ids of the Animations it plays, comma-separated.
        animations: String,
    },
    /// More ticks than a sheet shows.
    #[error("{}: {tick_count} ticks asked for, and a sheet shows at most {MAX_TICKS}; preview fewer at a time", path.display())]
    TooManyTicks {
        /// The file.
        path: PathBuf,
        /// How many were asked for.
        tick_count: usize,
    },
    /// Sampling stopped (a Molang value not finite, or over its budget).
    #[error("{}: playback would stop: {source}", path.display())]
    Sample {
        /// The file.
        path: PathBuf,
        /// Why.
        source: SampleError,
    },
    /// A live input (`--look`, `--reach`, `--path`) is refused.
    #[error("{}: {source}", path.display())]
    LiveInput {
        /// The file.
        path: PathBuf,
        /// Why.
        source: SampleInputError,
    },
    /// The skin file cannot be read.
    #[error("{}: cannot read the skin: {source}", path.display())]
    ReadSkin {
        /// The skin file.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
    /// The skin file is not a skin.
    #[error("{}: {source}", path.display())]
    Skin {
        /// The skin file.
        path: PathBuf,
        /// What is wrong with it.
        source: SkinError,
    },
    /// The sheet cannot be encoded (unexpected: it is encoded in memory).
    #[error("{}: cannot encode the sheet as PNG: {source}", path.display())]
    Encode {
        /// Where it was to be written.
        path: PathBuf,
        /// What the encoder said.
        source: PngError,
    },
    /// The sheet cannot be written.
    #[error("{}: cannot write the sheet: {source}", path.display())]
    Write {
        /// Where it was to be written.
        path: PathBuf,
        /// The system's error.
        source: std::io::Error,
    },
}

/// `FILE: /pointer: message`, one line per problem.
fn problem_lines(path: &Path, problems: &[Problem]) -> String {
    let lines: Vec<String> = problems
        .iter()
        .map(|p| {
            if p.pointer.is_empty() {
                format!("{}: {}", path.display(), p.message)
            } else {
                format!("{}: {p}", path.display())
            }
        })
        .collect();
    lines.join("\n")
}

/// Reads a skin PNG for [`Preview::render`].
pub fn load_skin(path: &Path) -> Result<Skin, PreviewError> {
    let bytes = std::fs::read(path).map_err(|source| PreviewError::ReadSkin {
        path: path.to_owned(),
        source,
    })?;
    Skin::from_png(&bytes).map_err(|source| PreviewError::Skin {
        path: path.to_owned(),
        source,
    })
}

/// An Animation posed at each tick of a sheet, with the sheet's cameras.
#[derive(Clone, Debug)]
pub struct Preview {
    shapes: Vec<DrawnNode>,
    frames: Vec<Frame>,
    duration_ticks: u32,
    bounds: Sphere,
    layout: SheetLayout,
    cameras: [Camera; 2],
    /// The emote camera of each column, for an Animation that writes its
    /// shots (the sheet's third row).
    player_cameras: Option<Vec<Camera>>,
}

impl Preview {
    /// Poses `file` (compiled as `compiled`) at the options' ticks.
    pub fn new(
        file: &AnimationFile,
        compiled: &CompiledAnimation,
        options: &PreviewOptions,
    ) -> Result<Preview, LiveSampleError> {
        let duration_ticks = compiled.rig.duration_ticks;
        let ticks = if options.ticks.is_empty() {
            default_ticks(duration_ticks)
        } else {
            options.ticks.clone()
        };
        let shapes = node_shapes(file, options.slim);
        let frames = sample_frames(compiled, &shapes, &ticks, options.seed, &options.live)?;
        let bounds = Sphere::around(scene_points(&shapes, &frames)).unwrap_or(Sphere {
            centre: glam::Vec3::new(0.0, 1.0, 0.0),
            radius: 1.0,
        });
        let cell_px = options.cell_px.max(16);
        let cameras = View::ALL.map(|view| Camera::framing(view, bounds, cell_px));
        let player_cameras = match &file.metadata.camera {
            CameraSetting::Shots(shots) => Some(
                sample_ticks_with_camera(compiled, &ticks, options.seed, shots, &options.live)?
                    .iter()
                    .filter_map(|line| line.camera.as_ref())
                    .map(|camera| {
                        let direction = look_direction(
                            camera.yaw_degrees.to_radians(),
                            camera.pitch_degrees.to_radians(),
                        );
                        Camera::player_view(Vec3::from(camera.eye), direction, cell_px)
                    })
                    .collect(),
            ),
            CameraSetting::ServerDefault | CameraSetting::Off => None,
        };
        let mut layout = SheetLayout::new(ticks.len(), cell_px);
        if player_cameras.is_some() {
            layout = layout.with_camera_row();
        }
        Ok(Preview {
            shapes,
            frames,
            duration_ticks,
            bounds,
            layout,
            cameras,
            player_cameras,
        })
    }

    /// Reads, validates and compiles the Animation at `path`, then poses it.
    pub fn open(path: &Path, options: &PreviewOptions) -> Result<Preview, PreviewError> {
        if options.ticks.len() > MAX_TICKS {
            return Err(PreviewError::TooManyTicks {
                path: path.to_owned(),
                tick_count: options.ticks.len(),
            });
        }
        let invalid = |problems: Vec<Problem>| PreviewError::InvalidFile {
            path: path.to_owned(),
            problems: problems.into_iter().filter(Problem::is_error).collect(),
        };
        // A clip previews as the emote it plays as on the server.
        let (problems, file) = if path.extension().is_some_and(|e| e == "anim") {
            let (problems, file) = read_clip_animation(path);
            (problems, file.map(EmoteFile::Animation))
        } else {
            let report = read_emote_file(path);
            (report.problems, report.file)
        };
        let file = match file {
            Some(EmoteFile::Animation(file)) => file,
            Some(EmoteFile::Sequence(sequence)) => {
                let mut ids: Vec<String> = sequence
                    .references()
                    .iter()
                    .map(|r| r.id.to_string())
                    .collect();
                ids.sort();
                ids.dedup();
                return Err(PreviewError::Sequence {
                    path: path.to_owned(),
                    animations: ids.join(", "),
                });
            }
            Some(EmoteFile::Controller(controller)) => {
                let mut ids: Vec<String> = controller.clips().map(|r| r.id.to_string()).collect();
                ids.sort();
                ids.dedup();
                return Err(PreviewError::Controller {
                    path: path.to_owned(),
                    animations: ids.join(", "),
                });
            }
            None => return Err(invalid(problems)),
        };
        let compiled = CompiledAnimation::compile(&file).map_err(invalid)?;
        Preview::new(&file, &compiled, options).map_err(|e| match e {
            LiveSampleError::Sample(source) => PreviewError::Sample {
                path: path.to_owned(),
                source,
            },
            LiveSampleError::Input(source) => PreviewError::LiveInput {
                path: path.to_owned(),
                source,
            },
        })
    }

    /// The sheet's layout.
    pub fn layout(&self) -> &SheetLayout {
        &self.layout
    }

    /// The tick of each column.
    pub fn ticks(&self) -> Vec<u32> {
        self.frames.iter().map(|f| f.tick).collect()
    }

    /// The ids of the nodes that draw something, in the file's order.
    pub fn drawn_node_ids(&self) -> Vec<&str> {
        self.shapes.iter().map(|n| n.id.as_str()).collect()
    }

    /// The node's composed matrix in its root's frame at `column`'s tick,
    /// `None` when it draws nothing or is hidden then.
    pub fn node_matrix(&self, node_id: &str, column: usize) -> Option<Affine3A> {
        let frame = self.frames.get(column)?;
        frame
            .placed
            .iter()
            .find(|p| {
                self.shapes
                    .get(p.shape_index)
                    .is_some_and(|s| s.id == node_id)
            })
            .map(|p| p.matrix)
    }

    /// The pixels of the sheet the node may cover in `view` at `column`'s
    /// tick: the rectangle around its projected box (both layers of a
    /// skull), or its label; `None` when it is not drawn then.
    pub fn node_bounds_px(&self, node_id: &str, view: View, column: usize) -> Option<PixelRect> {
        let frame = self.frames.get(column)?;
        let placed = frame.placed.iter().find(|p| {
            self.shapes
                .get(p.shape_index)
                .is_some_and(|s| s.id == node_id)
        })?;
        let skin = Skin::stand_in();
        let rect = self.painter(view, column, &skin)?.bounds_px(placed)?;
        let cell = self.layout.cell_rect(column, view);
        Some(rect.offset(cell.x_px, cell.y_px))
    }

    /// The views of the sheet's rows.
    pub fn views(&self) -> Vec<View> {
        let camera = self.player_cameras.is_some().then_some(View::Camera);
        View::ALL.into_iter().chain(camera).collect()
    }

    /// The painter of `view` at `column` (`None`: no such cell).
    fn painter<'a>(&'a self, view: View, column: usize, skin: &'a Skin) -> Option<CellPainter<'a>> {
        let camera = match view {
            View::Camera => self.player_cameras.as_ref()?.get(column)?,
            fixed => self.cameras.get(fixed.row())?,
        };
        Some(CellPainter {
            camera,
            skin,
            shapes: &self.shapes,
        })
    }

    /// Draws the sheet with `skin` on the skin-bound parts.
    pub fn render(&self, skin: &Skin) -> RgbaImage {
        let mut sheet = self.layout.blank();
        for (column, frame) in self.frames.iter().enumerate() {
            let end = if frame.tick > self.duration_ticks {
                " (end)"
            } else {
                ""
            };
            sheet::label_column(
                &mut sheet,
                &self.layout,
                column,
                &format!("tick {}{end}", frame.tick),
            );
            for view in self.views() {
                if let Some(painter) = self.painter(view, column, skin) {
                    let cell = painter.draw(frame, self.bounds, self.layout.cell_px());
                    sheet::place_cell(&mut sheet, &self.layout, column, view, &cell);
                }
            }
        }
        sheet
    }
}

/// Draws the sheet of the Animation at `path` with `skin`.
pub fn render_sheet(
    path: &Path,
    skin: &Skin,
    options: &PreviewOptions,
) -> Result<RgbaImage, PreviewError> {
    Ok(Preview::open(path, options)?.render(skin))
}

/// Draws the sheet of the Animation at `path` and writes it to `output` as
/// a PNG; the skin is read from `skin_path` or is the stand-in. Returns the
/// sheet's size.
pub fn write_sheet(
    path: &Path,
    skin_path: Option<&Path>,
    options: &PreviewOptions,
    output: &Path,
) -> Result<(u32, u32), PreviewError> {
    let skin = match skin_path {
        Some(skin_path) => load_skin(skin_path)?,
        None => Skin::stand_in(),
    };
    let sheet = render_sheet(path, &skin, options)?;
    let bytes = sheet.encode_png().map_err(|source| PreviewError::Encode {
        path: output.to_owned(),
        source,
    })?;
    std::fs::write(output, bytes).map_err(|source| PreviewError::Write {
        path: output.to_owned(),
        source,
    })?;
    Ok((sheet.width_px(), sheet.height_px()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn bow_path() -> PathBuf {
        Path::new(env!("CARGO_MANIFEST_DIR")).join("emotes/bow.json")
    }

    #[test]
    fn default_ticks_spread_over_the_duration() {
        assert_eq!(default_ticks(50), [0, 12, 25, 37]);
        assert_eq!(default_ticks(2), [0, 1]);
        assert_eq!(default_ticks(1), [0]);
    }

    #[test]
    fn the_bow_sheet_has_its_layout_and_its_head_moves() {
        let options = PreviewOptions {
            ticks: vec![0, 20],
            cell_px: 96,
            ..PreviewOptions::default()
        };
        let preview = Preview::open(&bow_path(), &options).expect("the bow previews");
        let sheet = preview.render(&Skin::stand_in());
        assert_eq!(
            (sheet.width_px(), sheet.height_px()),
            preview.layout().size_px()
        );
        assert_eq!(preview.ticks(), [0, 20]);
        let head = |column| {
            preview
                .node_bounds_px("head", View::Front, column)
                .expect("drawn")
        };
        let (before, after) = (head(0), head(1));
        // Same camera, next column: the bowed head is lower in its cell.
        let cell_x = preview.layout().cell_rect(1, View::Front).x_px
            - preview.layout().cell_rect(0, View::Front).x_px;
        assert!(after.y_px > before.y_px, "{before:?} {after:?}");
        let leg = |column| {
            preview
                .node_bounds_px("leg_r", View::Front, column)
                .expect("drawn")
        };
        assert_eq!(leg(1), leg(0).offset(cell_x, 0));
        assert_eq!(
            preview.node_bounds_px("spine", View::Front, 0),
            None,
            "anchors draw nothing"
        );
    }

    #[test]
    fn an_emote_with_a_camera_gets_the_players_view_as_a_third_row() {
        let options = PreviewOptions {
            ticks: vec![0, 30, 50],
            cell_px: 96,
            ..PreviewOptions::default()
        };
        let celebrate = Path::new(env!("CARGO_MANIFEST_DIR")).join("emotes/celebrate.json");
        let preview = Preview::open(&celebrate, &options).expect("celebrate previews");
        assert_eq!(preview.views(), [View::Front, View::Side, View::Camera]);
        assert_eq!(preview.layout().row_count(), 3);
        let sheet = preview.render(&Skin::stand_in());
        assert_eq!(
            (sheet.width_px(), sheet.height_px()),
            preview.layout().size_px()
        );
        // The keyed camera moves and then cuts: the head lands elsewhere in
        // each column of the camera row, while the front view holds still
        // but for the head's own move.
        let head = |column| {
            preview
                .node_bounds_px("head", View::Camera, column)
                .map(|r| r.offset(-preview.layout().cell_rect(column, View::Camera).x_px, 0))
        };
        let (a, b, c) = (head(0), head(1), head(2));
        assert!(
            a.is_some() && b.is_some() && c.is_some(),
            "{a:?} {b:?} {c:?}"
        );
        assert!(a != b && b != c, "{a:?} {b:?} {c:?}");
        // The bow writes no camera: two rows.
        let bow = Preview::open(&bow_path(), &options).expect("the bow previews");
        assert_eq!(bow.views(), View::ALL);
        assert_eq!(bow.layout().row_count(), 2);
        assert_eq!(bow.node_bounds_px("head", View::Camera, 0), None);
    }

    #[test]
    fn errors_name_the_file_and_say_what_to_do() {
        let options = PreviewOptions::default();
        let sequence = Path::new(env!("CARGO_MANIFEST_DIR")).join("emotes/handshake.json");
        let error = Preview::open(&sequence, &options).expect_err("a Sequence");
        let message = error.to_string();
        assert!(
            message.starts_with(&format!("{}: is a Sequence", sequence.display())),
            "{message}"
        );
        assert!(message.contains("example:handshake_offer"), "{message}");
        let missing = Path::new("no/such/emote.json");
        let message = Preview::open(missing, &options)
            .expect_err("missing")
            .to_string();
        assert!(
            message.starts_with("no/such/emote.json: cannot read file"),
            "{message}"
        );
        let many = PreviewOptions {
            ticks: (0..17).collect(),
            ..PreviewOptions::default()
        };
        assert!(matches!(
            Preview::open(&bow_path(), &many),
            Err(PreviewError::TooManyTicks { tick_count: 17, .. })
        ));
    }
}
