//! The pack-drawn twins of skin-bound displays, on the real server
//! in-process (the `emoted loadtest` harness with the pack served): while
//! nobody has the pack loaded, the bow's skin-bound nodes are heads for
//! everyone and have no twins; once a viewer loads it mid-playback, each
//! gets a twin with its slice's `CustomModelData`, moved `512·k` down, in a
//! cell that only that viewer sees, while the heads move to a cell that
//! only the others see; stopping the emote removes both.

use std::collections::BTreeSet;
use std::path::PathBuf;

use emoted::anim::DisplayTransform;
use emoted::format::EmoteId;
use emoted::pack::ids::CUSTOM_MODEL_DATA_BASE;
use emoted::server::cull::DisplayCells;
use emoted::server::emote::{ActiveEmote, DisplayUpdatePolicy};
use emoted::server::events::{
    DisplayAudience, EmoteDisplay, EndReason, PlayEmoteRequest, StopEmoteRequest,
};
use emoted::server::loadtest::{headless_app_serving_pack, join_counting_client};
use emoted::server::resource_pack::PackStatus;
use emoted::server::resource_pack::ServedPack;
use valence::entity::display::{
    InterpolationDuration, LeftRotation, RightRotation, Scale, Translation,
};
use valence::entity::item_display::Item;
use valence::math::Quat;
use valence::nbt::Value;
use valence::prelude::*;

/// Every live emote display: its audience, item and translation.
fn displays(app: &mut App) -> Vec<(DisplayAudience, Option<ItemStack>, Vec3, Entity)> {
    app.world
        .query_filtered::<(
            Entity,
            Option<&DisplayAudience>,
            Option<&Item>,
            &Translation,
            &EntityLayerId,
        ), (With<EmoteDisplay>, Without<Despawned>)>()
        .iter(&app.world)
        .map(|(_, audience, item, translation, layer)| {
            (
                audience.copied().unwrap_or_default(),
                item.map(|i| i.0.clone()),
                translation.0,
                layer.0,
            )
        })
        .collect()
}

/// Every live emote display's audience and transformation.
fn transforms(app: &mut App) -> Vec<(DisplayAudience, DisplayTransform)> {
    app.world
        .query_filtered::<(
            Option<&DisplayAudience>,
            &Translation,
            &LeftRotation,
            &Scale,
            &RightRotation,
        ), (With<EmoteDisplay>, Without<Despawned>)>()
        .iter(&app.world)
        .map(|(audience, translation, left, scale, right)| {
            (
                audience.copied().unwrap_or_default(),
                DisplayTransform {
                    translation: translation.0,
                    left_rotation: left.0,
                    scale: scale.0,
                    right_rotation: right.0,
                },
            )
        })
        .collect()
}

fn custom_model_data(stack: &ItemStack) -> Option<i32> {
    match stack.nbt.as_ref()?.get("CustomModelData")? {
        Value::Int(data) => Some(*data),
        _ => None,
    }
}

fn visible(app: &App, client: Entity) -> Vec<Entity> {
    app.world
        .get::<VisibleEntityLayers>(client)
        .expect("a client")
        .0
        .iter()
        .copied()
        .collect()
}

#[test]
fn a_viewer_that_loads_the_pack_mid_playback_gets_the_parts_and_the_others_keep_heads() {
    let roots = vec![PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/emotes"
    ))];
    let mut app = headless_app_serving_pack(
        &roots,
        DisplayUpdatePolicy::Scheduled,
        ServedPack::new(vec![0u8; 1024]),
    );
    let (bower, _) = join_counting_client(&mut app, 0);
    let (watcher, _) = join_counting_client(&mut app, 1);
    for _ in 0..2 {
        app.update();
    }
    assert_eq!(
        app.world.get::<PackStatus>(watcher),
        Some(&PackStatus::Offered)
    );
    app.world.send_event(PlayEmoteRequest {
        client: bower,
        emote: EmoteId::parse("example:bow").expect("an id"),
        bypass: true,
        cooldown_multiplier: 1.0,
        quiet: false,
    });
    for _ in 0..3 {
        app.update();
    }
    assert!(app.world.get::<ActiveEmote>(bower).is_some());
    let before = displays(&mut app);
    let heads = before
        .iter()
        .filter(|(_, item, ..)| {
            item.as_ref()
                .is_some_and(|i| i.item == ItemKind::PlayerHead)
        })
        .count();
    assert!(heads >= 6, "the bow's skin-bound nodes: {before:?}");
    assert!(
        before
            .iter()
            .all(|(audience, ..)| *audience == DisplayAudience::Everyone),
        "nobody has the pack: no twins, heads for everyone"
    );

    // The watcher's client loads the pack.
    *app.world.get_mut::<PackStatus>(watcher).expect("offered") = PackStatus::Loaded;
    app.update();
    // The twins start from their node's pose, born already in their
    // slice's window: each, moved back up by 512·k, is a fallback head's
    // pose without the head's half turn (the twin's model turns the skull).
    let poses = transforms(&mut app);
    let started: Vec<_> = poses
        .iter()
        .filter(|(audience, _)| *audience == DisplayAudience::WithPack)
        .collect();
    assert_eq!(started.len(), heads, "one twin per skin-bound node");
    let half_turn = Quat::from_rotation_y(std::f32::consts::PI);
    for (_, twin) in &started {
        let window = (-twin.translation.y / 512.0).round();
        assert!((0.0..48.0).contains(&window), "{twin:?}");
        let mut in_place = twin.translation;
        in_place.y += 512.0 * window;
        let head_pose = DisplayTransform {
            translation: in_place,
            right_rotation: twin.right_rotation * half_turn,
            ..*twin
        }
        .to_matrix();
        assert!(
            poses.iter().any(|(audience, head)| {
                *audience == DisplayAudience::WithoutPack
                    && head.to_matrix().abs_diff_eq(head_pose, 1e-4)
            }),
            "a twin {twin:?} whose node no head shows turned: {poses:?}"
        );
    }
    for _ in 0..2 {
        app.update();
    }
    let after = displays(&mut app);
    let twins: Vec<_> = after
        .iter()
        .filter(|(audience, ..)| *audience == DisplayAudience::WithPack)
        .collect();
    let fallbacks: Vec<_> = after
        .iter()
        .filter(|(audience, ..)| *audience == DisplayAudience::WithoutPack)
        .collect();
    assert_eq!(twins.len(), heads, "one twin per skin-bound node");
    assert_eq!(fallbacks.len(), heads, "the heads are for the others now");
    let mut parts = BTreeSet::new();
    for (_, item, translation, _) in &twins {
        let item = item.as_ref().expect("an item display");
        assert_eq!(item.item, ItemKind::PlayerHead);
        let data = custom_model_data(item).expect("a part's model data");
        let k = data - CUSTOM_MODEL_DATA_BASE;
        assert!((0..48).contains(&k), "model data {data}");
        let expected = -512.0 * k as f32;
        assert!(
            (translation.y - expected).abs() < 4.0,
            "slice {k} at y {} (expected about {expected})",
            translation.y
        );
        parts.insert(k);
    }
    assert!(parts.len() >= 6, "distinct parts: {parts:?}");
    for (_, item, translation, _) in &fallbacks {
        let item = item.as_ref().expect("an item display");
        assert_eq!(custom_model_data(item), None, "a whole head");
        assert!(translation.y.abs() < 4.0, "in place: {translation:?}");
    }

    // Each sees only its own audience's cells.
    let cells: Vec<_> = app.world.resource::<DisplayCells>().iter().collect();
    let layers_of = |audience: DisplayAudience| -> Vec<Entity> {
        cells
            .iter()
            .filter(|(key, _)| key.audience == audience)
            .map(|(_, layer)| *layer)
            .collect()
    };
    let (with_pack, without_pack) = (
        layers_of(DisplayAudience::WithPack),
        layers_of(DisplayAudience::WithoutPack),
    );
    assert!(
        !with_pack.is_empty() && !without_pack.is_empty(),
        "{cells:?}"
    );
    for (_, _, _, layer) in &twins {
        assert!(with_pack.contains(layer), "twins are in pack cells");
    }
    for (_, _, _, layer) in &fallbacks {
        assert!(
            without_pack.contains(layer),
            "heads are in the others' cells"
        );
    }
    let (watcher_sees, bower_sees) = (visible(&app, watcher), visible(&app, bower));
    assert!(with_pack.iter().all(|l| watcher_sees.contains(l)));
    assert!(without_pack.iter().all(|l| !watcher_sees.contains(l)));
    assert!(without_pack.iter().all(|l| bower_sees.contains(l)));
    assert!(with_pack.iter().all(|l| !bower_sees.contains(l)));

    // Stopping removes the twins with the rest.
    app.world.send_event(StopEmoteRequest {
        client: bower,
        reason: EndReason::Stopped,
    });
    for _ in 0..2 {
        app.update();
    }
    assert!(displays(&mut app).is_empty(), "{:?}", displays(&mut app));
}

/// Every live pack-drawn twin: its item's model data and transformation
/// fields, with its interpolation duration.
fn twin_states(app: &mut App) -> Vec<(Option<i32>, DisplayTransform, i32)> {
    app.world
        .query_filtered::<(
            &DisplayAudience,
            &Item,
            &Translation,
            &LeftRotation,
            &Scale,
            &RightRotation,
            &InterpolationDuration,
        ), (With<EmoteDisplay>, Without<Despawned>)>()
        .iter(&app.world)
        .filter(|(audience, ..)| **audience == DisplayAudience::WithPack)
        .map(|(_, item, translation, left, scale, right, duration)| {
            (
                custom_model_data(&item.0),
                DisplayTransform {
                    translation: translation.0,
                    left_rotation: left.0,
                    scale: scale.0,
                    right_rotation: right.0,
                },
                duration.0,
            )
        })
        .collect()
}

#[test]
fn a_twin_with_no_wearer_stays_at_scale_0_while_the_players_own_turns() {
    let roots = vec![PathBuf::from(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/tests/fixtures/partner_skin"
    ))];
    let mut app = headless_app_serving_pack(
        &roots,
        DisplayUpdatePolicy::Scheduled,
        ServedPack::new(vec![0u8; 1024]),
    );
    let (player, _) = join_counting_client(&mut app, 0);
    let (watcher, _) = join_counting_client(&mut app, 1);
    app.update();
    *app.world.get_mut::<PackStatus>(watcher).expect("offered") = PackStatus::Loaded;
    app.world.send_event(PlayEmoteRequest {
        client: player,
        emote: EmoteId::parse("test:partner_head").expect("an id"),
        bypass: true,
        cooldown_multiplier: 1.0,
        quiet: false,
    });
    let mut seen = Vec::new();
    for _ in 0..30 {
        app.update();
        seen.push(twin_states(&mut app));
    }
    assert!(app.world.get::<ActiveEmote>(player).is_some());
    let last = seen.last().expect("ticks");
    assert_eq!(last.len(), 2, "two skin-bound nodes, two twins: {last:?}");
    // The player's own head: dressed from its birth, in its window (slice
    // 0, the head, is drawn in place) and turning.
    let turns: BTreeSet<_> = seen
        .iter()
        .flatten()
        .filter(|(data, ..)| *data == Some(CUSTOM_MODEL_DATA_BASE))
        .map(|(_, pose, _)| format!("{:?}", pose.right_rotation * pose.left_rotation))
        .collect();
    assert!(turns.len() >= 2, "the initiator's head moves: {turns:?}");
    // The partner's part: nobody wears it, so it is never drawn and never
    // moved, whatever its node does.
    for tick in &seen {
        for (data, pose, duration) in tick {
            if data.is_some() {
                continue;
            }
            assert_eq!(
                pose.scale,
                Vec3::ZERO,
                "an undressed twin is hidden: {tick:?}"
            );
            assert_eq!(pose.translation, Vec3::ZERO, "and not moved: {tick:?}");
            assert_eq!(*duration, 0, "{tick:?}");
        }
    }
    assert_eq!(
        last.iter().filter(|(data, ..)| data.is_none()).count(),
        1,
        "the partner's twin waits undressed: {last:?}"
    );
}
