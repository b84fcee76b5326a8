//! Playing an emote allocates nothing per tick: every bundled Animation is
//! compiled and given its buffers first, then hundreds of ticks of cycle
//! starts, `molang.tick`, track sampling and hierarchy composition run under
//! a counting allocator that must see zero allocations. The same for the
//! `.anim` clip fixtures: compiled once, then sampled and asked for their
//! cues tick after tick.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

use emoted::anim::clip::CompiledClip;
use emoted::format::clip::read_clip_file;

use emoted::anim::Pose;
use emoted::format::{read_emote_file, EmoteFile};
use emoted::library::CompiledAnimation;
use emoted::playback::Clock;

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Only the measuring thread counts: the test harness's own threads
    /// allocate while they report the other test's result.
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if MEASURING.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

/// Starts or stops counting on this thread (the count starts at zero).
fn measure(on: bool) {
    if on {
        ALLOCATIONS.store(0, Ordering::SeqCst);
    }
    MEASURING.with(|measuring| measuring.set(on));
}

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: forwarded unchanged to the system allocator.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

/// The counter is global: the tests take turns.
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

#[test]
fn sampling_every_bundled_animation_allocates_nothing_per_tick() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let mut playbacks = Vec::new();
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/emotes");
    for entry in std::fs::read_dir(dir).expect("emotes/") {
        let path = entry.expect("entry").path();
        if let Some(EmoteFile::Animation(anim)) = read_emote_file(&path).file {
            let compiled = CompiledAnimation::compile(&anim).expect("bundled Molang compiles");
            let state = compiled.new_molang_state(7);
            let pose = Pose::new(&compiled.rig);
            let clock = Clock::new(
                anim.settings.playback.mode,
                anim.timeline.duration_ticks,
                anim.settings.playback.loop_delay_ticks,
            );
            playbacks.push((compiled, state, pose, clock));
        }
    }
    assert!(
        playbacks.len() >= 10,
        "bundled Animations: {}",
        playbacks.len()
    );
    let mut samples = 0usize;

    measure(true);
    for tick in 0..400u64 {
        for (compiled, state, pose, clock) in &mut playbacks {
            let step = clock.step(1_000_000 + tick);
            if step.cycle_started {
                compiled
                    .begin_cycle(state, step.loop_count)
                    .expect("finite");
            }
            compiled
                .step(state, step.position_ticks, step.advancing, pose)
                .expect("finite");
            samples += pose.nodes.len();
        }
    }
    measure(false);

    let allocations = ALLOCATIONS.load(Ordering::SeqCst);
    assert!(
        samples > 10_000,
        "the loop really sampled ({samples} node samples)"
    );
    assert_eq!(
        allocations, 0,
        "{allocations} allocations over {samples} node samples"
    );
}

#[test]
fn sampling_clips_allocates_nothing_per_tick() {
    let _turn = ONE_AT_A_TIME.lock().unwrap_or_else(|e| e.into_inner());
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/clips");
    let mut clips = Vec::new();
    for name in ["walk_v1.anim", "swing_v2.anim", "every_feature_v3.anim"] {
        let file = read_clip_file(&std::path::Path::new(dir).join(name))
            .file
            .expect("valid fixture");
        let compiled = CompiledClip::compile(&file, None);
        let pose = compiled.new_pose();
        clips.push((compiled, pose));
    }
    let mut cues = Vec::with_capacity(1024);
    let mut samples = 0usize;
    measure(true);
    for tick in 0..400u32 {
        let (from, to) = (tick as f32 / 20.0, (tick + 1) as f32 / 20.0);
        for (compiled, pose) in &mut clips {
            compiled.sample_into(compiled.clip_time(from), pose);
            compiled.cues_between(from, to, &mut cues);
            samples += pose.samples().len();
        }
        cues.clear();
    }
    measure(false);
    let allocations = ALLOCATIONS.load(Ordering::SeqCst);
    assert!(
        samples > 1000,
        "the loop really sampled ({samples} joint samples)"
    );
    assert_eq!(
        allocations, 0,
        "{allocations} allocations over {samples} joint samples"
    );
}
