//! `emoted preview FILE --tick T... -o SHEET.png` run as a real process:
//! the PNG it writes has the size the layout says; between two ticks the
//! parts that move change pixels and the parts that stay keep theirs (the
//! regions come from the library's projection of each node's box, not
//! from pixel numbers written here); `--skin` paints the skin-bound parts;
//! a bad skin and a Sequence fail with the file named.
//!
//! The checks of moving and still parts work for any emote with a body
//! ([`assert_moving_and_still`]); the bow's own expectations are on top.

use std::collections::BTreeSet;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::Command;

use emoted::library::sample::sample_ticks;
use emoted::library::CompiledAnimation;
use emoted::preview::{PixelRect, Preview, PreviewOptions, RgbaImage, View};

fn scratch(name: &str) -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("preview_cli");
    fs::create_dir_all(&dir).expect("create the scratch dir");
    dir.join(format!("{}-{name}", std::process::id()))
}

fn emote(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("emotes")
        .join(name)
}

struct Run {
    success: bool,
    stderr: String,
}

fn preview(args: &[&str]) -> Run {
    let output = Command::new(env!("CARGO_BIN_EXE_emoted"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("preview")
        .args(args)
        .output()
        .expect("run emoted preview");
    Run {
        success: output.status.success(),
        stderr: String::from_utf8_lossy(&output.stderr).into_owned(),
    }
}

/// Runs `emoted preview` on `file` at `ticks` (and `extra` arguments) and
/// decodes the sheet.
fn sheet(file: &Path, ticks: &[u32], extra: &[&str], name: &str) -> RgbaImage {
    let output = scratch(name);
    let mut args = vec![file.to_str().expect("utf-8 path").to_owned()];
    for tick in ticks {
        args.extend(["--tick".to_owned(), tick.to_string()]);
    }
    args.extend(extra.iter().map(|a| (*a).to_owned()));
    args.extend(["-o".to_owned(), output.to_str().expect("utf-8").to_owned()]);
    let args: Vec<&str> = args.iter().map(String::as_str).collect();
    let run = preview(&args);
    assert!(run.success, "emoted preview failed: {}", run.stderr);
    let bytes = fs::read(&output).expect("the sheet was written");
    RgbaImage::decode_png(&bytes).expect("the sheet is a PNG")
}

/// The tick of `file` at which node `id` is lowest (the bow's deepest).
fn lowest_tick(file: &Path, id: &str) -> u32 {
    let report = emoted::format::read_emote_file(file);
    let Some(emoted::format::EmoteFile::Animation(animation)) = report.file else {
        panic!("{} is an Animation", file.display());
    };
    let compiled = CompiledAnimation::compile(&animation).expect("compiles");
    let ticks: Vec<u32> = (0..=compiled.rig.duration_ticks).collect();
    let lines = sample_ticks(&compiled, &ticks, 0).expect("samples");
    let height = |line: &emoted::library::sample::SampleLine| line.nodes[id].matrix[13];
    lines
        .iter()
        .min_by(|a, b| height(a).total_cmp(&height(b)))
        .map(|line| line.tick)
        .expect("ticks")
}

/// Every pixel of `rect`, as `(x, y)`.
fn pixels_of(rect: PixelRect) -> impl Iterator<Item = (i32, i32)> {
    (rect.y_px..rect.bottom_px())
        .flat_map(move |y| (rect.x_px..rect.right_px()).map(move |x| (x, y)))
}

/// What changed between columns 0 and 1 of a sheet, per node.
struct Motion {
    /// Nodes whose matrix differs between the two ticks, with the share of
    /// the pixels around them (both ticks' boxes) that changed.
    moving: Vec<(String, f64)>,
    /// Nodes that keep their matrix, with how many of their pixels (those
    /// no moving node can reach) were compared, all of them unchanged.
    still: Vec<(String, usize)>,
}

impl Motion {
    /// The share of changed pixels around moving node `name` ("id View").
    fn share(&self, name: &str) -> f64 {
        self.moving
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, s)| *s)
            .unwrap_or_else(|| panic!("{name} should move: {:?}", self.moving))
    }

    /// How many unchanged pixels of still node `name` ("id View") were
    /// compared.
    fn compared(&self, name: &str) -> usize {
        self.still
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, c)| *c)
            .unwrap_or_else(|| panic!("{name} should stay: {:?}", self.still))
    }
}

/// Checks that between columns 0 and 1 of `image` (drawn from `preview`)
/// the still nodes keep every pixel that no moving node can cover, in both
/// views; returns what moved and how much.
fn assert_moving_and_still(preview: &Preview, image: &RgbaImage) -> Motion {
    let layout = preview.layout();
    let mut motion = Motion {
        moving: Vec::new(),
        still: Vec::new(),
    };
    let ids: Vec<&str> = preview.drawn_node_ids();
    let (moving, still): (Vec<&str>, Vec<&str>) = ids
        .iter()
        .filter(|id| preview.node_matrix(id, 0).is_some() || preview.node_matrix(id, 1).is_some())
        .partition(|id| preview.node_matrix(id, 0) != preview.node_matrix(id, 1));
    for view in View::ALL {
        let dx = layout.cell_rect(1, view).x_px - layout.cell_rect(0, view).x_px;
        // Where moving nodes may be, at either tick, in column 0's pixels.
        let mut reachable: Vec<PixelRect> = Vec::new();
        for id in &moving {
            reachable.extend(preview.node_bounds_px(id, view, 0));
            reachable.extend(
                preview
                    .node_bounds_px(id, view, 1)
                    .map(|r| r.offset(-dx, 0)),
            );
        }
        for id in &still {
            let Some(rect) = preview.node_bounds_px(id, view, 0) else {
                continue;
            };
            assert_eq!(
                preview.node_bounds_px(id, view, 1),
                Some(rect.offset(dx, 0)),
                "{id} keeps its place in the {view:?} view"
            );
            let mut compared = 0;
            for (x, y) in pixels_of(rect) {
                if reachable.iter().any(|r| r.contains(x, y)) {
                    continue;
                }
                compared += 1;
                assert_eq!(
                    image.pixel(x, y),
                    image.pixel(x + dx, y),
                    "{id} ({view:?} view) changed at ({x}, {y})"
                );
            }
            motion.still.push((format!("{id} {view:?}"), compared));
        }
        for id in &moving {
            let rects: Vec<PixelRect> = [
                preview.node_bounds_px(id, view, 0),
                preview
                    .node_bounds_px(id, view, 1)
                    .map(|r| r.offset(-dx, 0)),
            ]
            .into_iter()
            .flatten()
            .collect();
            let area: BTreeSet<(i32, i32)> = rects.iter().flat_map(|r| pixels_of(*r)).collect();
            let changed = area
                .iter()
                .filter(|(x, y)| image.pixel(*x, *y) != image.pixel(x + dx, *y))
                .count();
            motion.moving.push((
                format!("{id} {view:?}"),
                changed as f64 / area.len().max(1) as f64,
            ));
        }
    }
    motion
}

#[test]
fn the_bow_bends_and_its_legs_stay() {
    let bow = emote("bow.json");
    let deepest = lowest_tick(&bow, "head");
    assert!(
        (10..=35).contains(&deepest),
        "the bow is deepest at {deepest}"
    );
    let image = sheet(&bow, &[0, deepest], &[], "bow.png");
    let options = PreviewOptions {
        ticks: vec![0, deepest],
        ..PreviewOptions::default()
    };
    let preview = Preview::open(&bow, &options).expect("the bow previews");
    assert_eq!(
        (image.width_px(), image.height_px()),
        preview.layout().size_px()
    );
    assert_eq!(preview.layout().column_count(), 2);

    let motion = assert_moving_and_still(&preview, &image);
    for name in [
        "head Front",
        "head Side",
        "torso_upper Front",
        "torso_upper Side",
    ] {
        let share = motion.share(name);
        assert!(share > 0.3, "{name}: only {share:.2} of its pixels changed");
    }
    for name in ["leg_r Front", "leg_l Front", "leg_r Side"] {
        let compared = motion.compared(name);
        // The leg's own pixels, not just background: the lower legs are
        // out of every moving part's reach.
        assert!(compared > 150, "{name}: only {compared} pixels compared");
    }
}

#[test]
fn the_wave_moves_the_right_arm_and_the_rest_of_the_body_stays() {
    let wave = emote("wave.json");
    // Tick 12: the arm is up and the forearm mid-wave.
    let ticks = [0, 12];
    let image = sheet(&wave, &ticks, &[], "wave.png");
    let options = PreviewOptions {
        ticks: ticks.to_vec(),
        ..PreviewOptions::default()
    };
    let preview = Preview::open(&wave, &options).expect("the wave previews");
    assert_eq!(
        (image.width_px(), image.height_px()),
        preview.layout().size_px()
    );
    let motion = assert_moving_and_still(&preview, &image);
    let moving: BTreeSet<&str> = motion
        .moving
        .iter()
        .filter_map(|(n, _)| n.split(' ').next())
        .collect();
    // The right arm (and what it holds) moves; nothing else of the body.
    for part in ["upper_arm_r", "forearm_r"] {
        assert!(moving.contains(part), "{part} moves: {moving:?}");
    }
    for part in ["head", "torso", "arm_l", "leg_r", "leg_l"] {
        assert!(!moving.contains(part), "{part} stays: {moving:?}");
    }
    for (name, share) in &motion.moving {
        if name.starts_with("upper_arm_r") || name.starts_with("forearm_r") {
            assert!(
                *share > 0.2,
                "{name}: only {share:.2} of its pixels changed"
            );
        }
    }
    for part in ["head Front", "torso Front", "arm_l Front", "leg_l Front"] {
        let compared = motion.compared(part);
        assert!(compared > 100, "{part}: only {compared} pixels compared");
    }
}

#[test]
fn the_skin_given_is_the_skin_drawn() {
    // A skin of one colour: the head's pixels take it, shaded.
    let magenta = RgbaImage::new(64, 64, [250, 0, 250, 255]);
    let skin = scratch("magenta-skin.png");
    fs::write(&skin, magenta.encode_png().expect("encodes")).expect("write the skin");
    let bow = emote("bow.json");
    let image = sheet(
        &bow,
        &[0],
        &["--skin", skin.to_str().expect("utf-8")],
        "magenta.png",
    );
    let preview = Preview::open(
        &bow,
        &PreviewOptions {
            ticks: vec![0],
            ..PreviewOptions::default()
        },
    )
    .expect("previews");
    let head = preview
        .node_bounds_px("head", View::Front, 0)
        .expect("drawn");
    let is_magenta = |p: [u8; 4]| p[0] > 150 && p[2] > 150 && p[1] < 40;
    let inside = pixels_of(head)
        .filter(|(x, y)| image.pixel(*x, *y).is_some_and(is_magenta))
        .count();
    let area = (head.width_px * head.height_px) as usize;
    assert!(
        inside * 2 > area,
        "{inside} of {area} head pixels are the skin's"
    );
    let stand_in = sheet(&bow, &[0], &[], "stand-in.png");
    assert!(pixels_of(head).all(|(x, y)| !stand_in.pixel(x, y).is_some_and(is_magenta)));
}

#[test]
fn a_bad_skin_fails_naming_it() {
    let garbage = scratch("garbage-skin.png");
    fs::write(&garbage, b"this is no PNG").expect("write");
    let small = scratch("small-skin.png");
    let tiny = RgbaImage::new(16, 16, [0, 0, 0, 255]);
    fs::write(&small, tiny.encode_png().expect("encodes")).expect("write");
    let missing = scratch("missing-skin.png");
    let bow = emote("bow.json");
    for (skin, says) in [
        (&garbage, "not a PNG image"),
        (&small, "the image is 16×16 px; a skin is 64×64 px"),
        (&missing, "cannot read the skin"),
    ] {
        let out = scratch("unused.png");
        let run = preview(&[
            bow.to_str().expect("utf-8"),
            "--skin",
            skin.to_str().expect("utf-8"),
            "-o",
            out.to_str().expect("utf-8"),
        ]);
        assert!(!run.success, "{}: {}", skin.display(), run.stderr);
        assert!(
            run.stderr
                .starts_with(&format!("{}: {says}", skin.display())),
            "{}",
            run.stderr
        );
    }
}

#[test]
fn a_sequence_is_refused_with_its_animations_named() {
    let out = scratch("sequence.png");
    let sequence = emote("handshake.json");
    let run = preview(&[
        sequence.to_str().expect("utf-8"),
        "-o",
        out.to_str().expect("utf-8"),
    ]);
    assert!(!run.success);
    assert!(
        run.stderr
            .starts_with(&format!("{}: is a Sequence", sequence.display())),
        "{}",
        run.stderr
    );
    assert!(
        run.stderr.contains("example:handshake_offer"),
        "{}",
        run.stderr
    );
    assert!(!out.exists(), "nothing is written");
}

#[test]
fn without_ticks_the_sheet_spreads_over_the_duration() {
    let bow = emote("bow.json");
    let image = sheet(&bow, &[], &["--cell-size", "64"], "default-ticks.png");
    let preview = Preview::open(
        &bow,
        &PreviewOptions {
            cell_px: 64,
            ..PreviewOptions::default()
        },
    )
    .expect("previews");
    assert_eq!(preview.ticks(), [0, 12, 25, 37]);
    assert_eq!(
        (image.width_px(), image.height_px()),
        preview.layout().size_px()
    );
}

/// An `.anim` clip previews as the emote it plays as on the server:
/// raise.anim points the right arm forward by tick 10 and nothing else
/// moves; a broken clip is refused with its pointer.
#[test]
fn a_clip_previews_as_the_emote_it_plays_as() {
    let clip = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/clip_emotes/raise.anim");
    let ticks = [0, 10];
    let image = sheet(&clip, &ticks, &[], "raise.png");
    let options = PreviewOptions {
        ticks: ticks.to_vec(),
        ..PreviewOptions::default()
    };
    let drawn = Preview::open(&clip, &options).expect("the clip previews");
    let motion = assert_moving_and_still(&drawn, &image);
    let moving: BTreeSet<&str> = motion
        .moving
        .iter()
        .filter_map(|(n, _)| n.split(' ').next())
        .collect();
    for part in ["upper_arm_r", "forearm_r"] {
        assert!(moving.contains(part), "{part} moves: {moving:?}");
    }
    for part in ["head", "torso", "arm_l", "leg_r", "leg_l"] {
        assert!(!moving.contains(part), "{part} stays: {moving:?}");
    }

    let broken = scratch("broken.anim");
    std::fs::write(
        &broken,
        r#"{"version": 3, "joints": {"rightArm": {"rotation": 5}}}"#,
    )
    .expect("write");
    let run = preview(&[broken.to_str().expect("utf-8"), "-o", "/dev/null"]);
    assert!(!run.success);
    assert!(
        run.stderr.contains("/joints/rightArm/rotation"),
        "{}",
        run.stderr
    );
}

#[test]
fn the_live_inputs_bend_the_drawn_body() {
    // The wave's head follows --look; --look 0,0 is the file as written.
    let file = emote("wave.json");
    let plain = sheet(&file, &[10], &[], "live-plain");
    let straight = sheet(&file, &[10], &["--look", "0,0"], "live-straight");
    let turned = sheet(&file, &[10], &["--look", "60,0"], "live-turned");
    assert!(plain == straight, "--look 0,0 draws the file");
    assert!(plain != turned, "--look 60,0 turns the head");
    // The template's right hand reaching up moves the arm.
    let template = emote("humanoid_template.json");
    let rest = sheet(&template, &[0], &[], "live-rest");
    let reach = sheet(
        &template,
        &[0],
        &["--reach", "hand_r=-0.3,1.9,0.3"],
        "live-reach",
    );
    assert!(rest != reach);
    // A bad input fails naming the file and the rule.
    let bad = preview(&[
        file.to_str().expect("utf-8"),
        "--reach",
        "tail=0,1,2",
        "-o",
        "/dev/null",
    ]);
    assert!(!bad.success);
    assert!(
        bad.stderr
            .contains("wave.json: --reach: `tail` is not a node"),
        "{}",
        bad.stderr
    );
}
