//! Evaluating compiled Molang never allocates: a counting global allocator
//! watches many evaluations of programs that use loops, temporaries,
//! variables, queries, strings, randomness and early `return`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use std::sync::atomic::{AtomicUsize, Ordering};

use emoted::molang::{
    compile, CompileContext, ItemSlot, ItemState, MolangRng, QueryContext, Session, Symbols,
};

struct Counting;

static ALLOCATIONS: AtomicUsize = AtomicUsize::new(0);

thread_local! {
    /// Only the measuring thread counts (the test harness has others).
    static MEASURING: Cell<bool> = const { Cell::new(false) };
}

fn note() {
    if MEASURING.with(Cell::get) {
        ALLOCATIONS.fetch_add(1, Ordering::Relaxed);
    }
}

// SAFETY: forwards to the system allocator unchanged; only counts.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        note();
        // SAFETY: same contract as the caller's.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: same contract as the caller's.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static GLOBAL: Counting = Counting;

const PROGRAMS: &[(&str, CompileContext)] = &[
    ("v.speed = math.random(90, 180); v.mode = 'spin'; v.n = 0;", CompileContext::Program),
    (
        "v.n = v.n + 1; t.acc = 0; loop(50, { t.acc = t.acc + math.die_roll(2, 0, 1); (t.acc > 40) ? break; }); v.acc = t.acc; (v.n > 1000) ? return 1; return v.acc;",
        CompileContext::Program,
    ),
    ("math.sin(q.anim_time * 90) * 5", CompileContext::Track),
    ("math.cos(q.anim_time * v.speed) * (v.mode == 'spin' ? 2 : 1)", CompileContext::Track),
    (
        "t.i = 0; loop(20, { t.i = t.i + 1; (math.mod(t.i, 2) == 0) ? continue; (t.i > 15) ? return t.i; }); return -1;",
        CompileContext::Track,
    ),
    (
        "q.is_item_name_any('main_hand', 'minecraft:bow', 'minecraft:crossbow') + q.scoreboard('kills') + q.any(v.mode, 'idle', 'spin') + q.position(1) + math.random_integer(0, 3)",
        CompileContext::Track,
    ),
    (
        "v.missing ?? (q.is_sneaking ? math.ease_in_out_elastic(0, 1, q.key_frame_lerp_time) : math.lerprotate(10, 350, 0.5))",
        CompileContext::Track,
    ),
    ("v.s = 'idle'; return 1 / 0 + math.sqrt(-1) + v.s + (v.s == 'idle') + c.nothing + q.count(1, 2, 3);", CompileContext::Program),
];

#[test]
fn evaluating_compiled_programs_never_allocates() {
    let mut symbols = Symbols::new();
    let programs: Vec<_> = PROGRAMS
        .iter()
        .map(|(source, context)| {
            compile(source, *context, &mut symbols).unwrap_or_else(|e| panic!("{source}: {e}"))
        })
        .collect();
    let mut session = Session::new(&symbols);
    let mut queries = QueryContext::default();
    queries.player.items[ItemSlot::MainHand.index()] = ItemState {
        id: "minecraft:crossbow".into(),
        charged: true,
    };
    queries.player.scores = vec![("kills".into(), 3.0)];
    let mut rng = MolangRng::new(11);

    const TICKS: usize = 20_000;
    let mut checksum = 0.0;
    MEASURING.with(|m| m.set(true));
    for tick in 0..TICKS {
        queries.anim_time_secs = tick as f64 * 0.05;
        queries.player.is_sneaking = tick % 3 == 0;
        if tick % 500 == 0 {
            session.reset();
        }
        for program in &programs {
            checksum += program.eval(&mut session, &queries, &mut rng);
        }
    }
    MEASURING.with(|m| m.set(false));
    let allocations = ALLOCATIONS.load(Ordering::Relaxed);
    println!(
        "{} evaluations, {allocations} allocations (checksum {checksum})",
        TICKS * programs.len()
    );
    assert!(checksum.is_finite());
    assert_eq!(allocations, 0, "evaluation allocated");

    // The counter works: compiling allocates.
    MEASURING.with(|m| m.set(true));
    let _ = compile("v.x + 1", CompileContext::Track, &mut symbols);
    MEASURING.with(|m| m.set(false));
    assert!(
        ALLOCATIONS.load(Ordering::Relaxed) > 0,
        "the counting allocator saw nothing"
    );
}
