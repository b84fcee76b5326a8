//! Which cells, and which band of each, a viewer sees ("Distance bands"
//! and "The byte budget" in the module docs).

use std::collections::HashMap;

use valence::prelude::*;

use super::{CatchUps, DisplayCells};
use crate::playback::schedule::{band_for_distance, COARSEST_BAND, DISPLAY_BANDS};
use crate::server::config::Config;
use crate::server::display_bands::BandLayers;
use crate::server::events::{BoneViewer, EmoteDisplay};
use crate::server::resource_pack::PackStatus;
use crate::server::storage::PlayerChoices;

/// How often the band layers' bytes are measured and every viewer's bands
/// are checked against its budget, in ticks (a twentieth of the viewers
/// each tick, so the checks do not all land on one tick).
pub const BUDGET_PERIOD_TICKS: u32 = 20;

/// A viewer's nearest emotes that are never drawn coarser for its budget.
pub const NEAREST_KEPT_EMOTES: u32 = 20;

/// A viewer whose budget moved emotes to coarser bands keeps them there
/// until its bytes at its distance bands would be under this share of the
/// budget (so a crowd near the budget does not flap between bands).
const RESTORE_SHARE: f64 = 0.8;

/// Demotions aim this far under the budget, for the same reason.
const DEMOTE_TO_SHARE: f64 = 0.9;

/// What the byte budget knows of each cell: the bytes a second written to
/// each of its band layers over the last period, and how many playbacks
/// have displays in it.
#[derive(Resource, Debug, Default)]
pub struct BandTraffic {
    /// Bytes a second per cell layer, per band.
    rates: HashMap<Entity, [f64; DISPLAY_BANDS]>,
    /// Playbacks per cell layer.
    playbacks: HashMap<Entity, u32>,
    ticks: u32,
}

impl BandTraffic {
    /// Band `band`'s bytes a second in the cell whose layer is `cell`.
    pub fn rate(&self, cell: Entity, band: usize) -> f64 {
        self.rates
            .get(&cell)
            .and_then(|r| r.get(band))
            .copied()
            .unwrap_or(0.0)
    }
}

/// Every [`BUDGET_PERIOD_TICKS`]: the band layers' bytes a second since
/// the last period, and the playbacks of each cell.
pub(super) fn measure_band_traffic(
    mut traffic: ResMut<BandTraffic>,
    mut band_layers: ResMut<BandLayers>,
    displays: Query<(&EmoteDisplay, &EntityLayerId)>,
) {
    traffic.ticks += 1;
    if traffic.ticks < BUDGET_PERIOD_TICKS {
        return;
    }
    let per_second = 20.0 / f64::from(traffic.ticks);
    traffic.ticks = 0;
    traffic.rates = band_layers
        .take_bytes()
        .into_iter()
        .map(|(cell, bytes)| (cell, bytes.map(|b| b as f64 * per_second)))
        .collect();
    // Distinct (cell, playback) pairs, sorted: a crowd of 1,000 in one cell
    // is 16,000 displays, too many to look each owner up in a list.
    let mut pairs: Vec<(Entity, Entity)> = displays
        .iter()
        .map(|(display, layer)| (layer.0, display.owner))
        .collect();
    pairs.sort_unstable();
    pairs.dedup();
    let mut playbacks: HashMap<Entity, u32> = HashMap::new();
    for (cell, _) in pairs {
        *playbacks.entry(cell).or_default() += 1;
    }
    traffic.playbacks = playbacks;
}

/// What cell visibility reads and writes of a client.
type Viewer = (
    Entity,
    Ref<'static, Position>,
    &'static mut VisibleEntityLayers,
    Option<Ref<'static, PackStatus>>,
    Option<Ref<'static, BoneViewer>>,
    Option<Ref<'static, PlayerChoices>>,
);

/// One cell a viewer is in reach of, and the band it gets.
#[derive(Clone, Copy, Debug)]
pub(super) struct Reached {
    /// The cell's layer.
    pub(super) cell: Entity,
    /// The horizontal distance to the cell's chunk column, blocks.
    pub(super) distance_blocks: f64,
    /// The band its distance allows.
    pub(super) natural_band: usize,
    /// The band it gets.
    pub(super) band: usize,
}

pub(super) fn show_cells_in_range(
    mut cells: ResMut<DisplayCells>,
    band_layers: Res<BandLayers>,
    traffic: Res<BandTraffic>,
    mut catch_ups: ResMut<CatchUps>,
    config: Res<Config>,
    mut clients: Query<Viewer, With<Client>>,
    mut reached: Local<Vec<Reached>>,
) {
    let everyone = cells.changed || config.is_changed();
    cells.changed = false;
    if cells.by_key.is_empty() {
        return;
    }
    let scale = config.emotes.display_view_scale;
    let near_blocks = config.emotes.tolerance_near_blocks;
    let budget = config.emotes.viewer_bytes_per_second as f64;
    for (client, position, mut visible, pack, bone_viewer, choices) in &mut clients {
        // `/emote parts off` shows heads, as to a viewer without the pack.
        let pack_changed = pack.as_ref().is_some_and(|p| p.is_changed())
            || choices.as_ref().is_some_and(|c| c.is_changed());
        let became_bone_viewer = bone_viewer.as_ref().is_some_and(|b| b.is_added());
        // This tick's share of the viewers is checked against the budget.
        let budget_turn = client.index() % BUDGET_PERIOD_TICKS == traffic.ticks;
        if !everyone
            && !budget_turn
            && !position.is_changed()
            && !pack_changed
            && !became_bone_viewer
        {
            continue;
        }
        let pack_loaded =
            PlayerChoices::sees_parts(choices.as_deref(), pack.is_some_and(|p| p.is_loaded()));
        let bone_viewer = bone_viewer.is_some();
        reached.clear();
        for (key, cell) in &cells.by_key {
            let reach = key.reach_blocks(scale);
            let distance_squared = key.distance_squared(position.0);
            let wanted = key.admits(pack_loaded, bone_viewer)
                && visible.0.contains(&key.world)
                && distance_squared <= reach * reach;
            if wanted {
                let distance_blocks = distance_squared.sqrt();
                let natural_band = band_for_distance(distance_blocks, near_blocks);
                reached.push(Reached {
                    cell: cell.layer,
                    distance_blocks,
                    natural_band,
                    band: natural_band,
                });
            } else if visible.0.contains(&cell.layer) {
                hide_cell(&mut visible, cell.layer, &band_layers);
            }
        }
        if budget > 0.0 {
            let demoted = reached.iter().any(|r| {
                band_layers.of(r.cell).is_some_and(|bands| {
                    (r.natural_band + 1..DISPLAY_BANDS).any(|b| visible.0.contains(&bands[b]))
                })
            });
            fit_budget(&mut reached, &traffic, budget, demoted);
        }
        for r in reached.iter() {
            show_cell(client, &mut visible, r, &band_layers, &mut catch_ups);
        }
    }
}

/// Moves the farthest cells of `reached` to the coarsest band until the
/// viewer's band bytes fit `budget` (aiming [`DEMOTE_TO_SHARE`] under it),
/// never the nearest cells that hold [`NEAREST_KEPT_EMOTES`] playbacks (at
/// the same distance, the cell with more playbacks counts as nearer). A
/// viewer already `demoted` stays so until its distance bands alone would
/// be under [`RESTORE_SHARE`] of the budget.
pub(super) fn fit_budget(
    reached: &mut [Reached],
    traffic: &BandTraffic,
    budget: f64,
    demoted: bool,
) {
    let natural: f64 = reached
        .iter()
        .map(|r| traffic.rate(r.cell, r.natural_band))
        .sum();
    let limit = if demoted {
        budget * RESTORE_SHARE
    } else {
        budget
    };
    if natural <= limit {
        return;
    }
    // Nearest first; at the same distance the cell with more playbacks
    // first (a crowd's own cell before a few stray nodes in its column).
    let playbacks = |r: &Reached| traffic.playbacks.get(&r.cell).copied().unwrap_or(0);
    reached.sort_by(|a, b| {
        a.distance_blocks
            .total_cmp(&b.distance_blocks)
            .then_with(|| playbacks(b).cmp(&playbacks(a)))
    });
    let mut kept_emotes = 0;
    let mut first_movable = reached.len();
    for (index, r) in reached.iter().enumerate() {
        if kept_emotes >= NEAREST_KEPT_EMOTES {
            first_movable = index;
            break;
        }
        kept_emotes += traffic.playbacks.get(&r.cell).copied().unwrap_or(0);
    }
    let mut total = natural;
    for r in reached[first_movable..].iter_mut().rev() {
        if total <= budget * DEMOTE_TO_SHARE {
            break;
        }
        if r.band < COARSEST_BAND {
            total += traffic.rate(r.cell, COARSEST_BAND) - traffic.rate(r.cell, r.band);
            r.band = COARSEST_BAND;
        }
    }
}

/// Shows a cell's layer and exactly its band layer `r.band`; a client new
/// to the cell is caught up ([`CatchUps`]).
fn show_cell(
    client: Entity,
    visible: &mut VisibleEntityLayers,
    r: &Reached,
    band_layers: &BandLayers,
    catch_ups: &mut CatchUps,
) {
    let arrived = !visible.0.contains(&r.cell);
    if arrived {
        visible.0.insert(r.cell);
    }
    if let Some(bands) = band_layers.of(r.cell) {
        for (band, layer) in bands.iter().enumerate() {
            let shown = visible.0.contains(layer);
            if band == r.band && !shown {
                visible.0.insert(*layer);
            } else if band != r.band && shown {
                visible.0.remove(layer);
            }
        }
    }
    if arrived {
        catch_ups.arrived.push((client, r.cell, r.band));
    }
}

/// Hides a cell's layer and its band layers.
fn hide_cell(visible: &mut VisibleEntityLayers, cell: Entity, band_layers: &BandLayers) {
    visible.0.remove(&cell);
    for layer in band_layers.of(cell).into_iter().flatten() {
        visible.0.remove(&layer);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Cells 0..n, cell i at 10·i blocks, at band 0, each with `playbacks`
    /// playbacks and band rates 1000, 600, 400, 200 bytes a second.
    fn crowd(n: u32, playbacks: u32) -> (Vec<Reached>, BandTraffic) {
        let mut traffic = BandTraffic::default();
        let reached = (0..n)
            .map(|i| {
                let cell = Entity::from_raw(i);
                traffic.rates.insert(cell, [1000.0, 600.0, 400.0, 200.0]);
                traffic.playbacks.insert(cell, playbacks);
                Reached {
                    cell,
                    distance_blocks: f64::from(i) * 10.0,
                    natural_band: 0,
                    band: 0,
                }
            })
            .collect();
        (reached, traffic)
    }

    #[test]
    fn the_farthest_cells_go_coarsest_first_until_under_the_budget() {
        let (mut reached, traffic) = crowd(10, 5);
        // 10,000 B/s at band 0; a budget of 8,000 aims at 7,200: four
        // cells at 200 instead of 1000 save 3,200.
        fit_budget(&mut reached, &traffic, 8000.0, false);
        let bands: Vec<usize> = reached.iter().map(|r| r.band).collect();
        assert_eq!(bands, vec![0, 0, 0, 0, 0, 0, 3, 3, 3, 3], "{reached:?}");
        // Within the budget: nothing moves.
        let (mut reached, traffic) = crowd(10, 5);
        fit_budget(&mut reached, &traffic, 10_000.0, false);
        assert!(reached.iter().all(|r| r.band == 0));
    }

    #[test]
    fn the_cells_of_the_nearest_twenty_emotes_never_go_coarser() {
        // 7 playbacks a cell: the nearest three cells hold 21.
        let (mut reached, traffic) = crowd(10, 7);
        fit_budget(&mut reached, &traffic, 1.0, false);
        let bands: Vec<usize> = reached.iter().map(|r| r.band).collect();
        assert_eq!(bands, vec![0, 0, 0, 3, 3, 3, 3, 3, 3, 3]);
        // All in one cell: it is kept.
        let (mut reached, traffic) = crowd(1, 500);
        fit_budget(&mut reached, &traffic, 1.0, false);
        assert_eq!(reached[0].band, 0);
        // At the same distance the crowd's cell comes before a stray one.
        let (mut reached, mut traffic) = crowd(2, 1);
        reached[1].distance_blocks = 0.0;
        traffic.playbacks.insert(reached[1].cell, 30);
        let crowd_cell = reached[1].cell;
        fit_budget(&mut reached, &traffic, 1.0, false);
        for r in reached.iter() {
            let kept = r.cell == crowd_cell;
            assert_eq!(r.band == 0, kept, "{reached:?}");
        }
    }

    #[test]
    fn a_demoted_viewer_stays_so_until_well_under_the_budget() {
        // 30,000 B/s at band 0, budget 33,000: it fits, but a viewer
        // already demoted needs its distance bands under 26,400 to come
        // back, so it keeps one cell (past the nearest 20) coarse.
        let (mut reached, traffic) = crowd(30, 1);
        fit_budget(&mut reached, &traffic, 33_000.0, true);
        let coarse = reached.iter().filter(|r| r.band == COARSEST_BAND).count();
        assert_eq!(coarse, 1, "{reached:?}");
        assert_eq!(reached[29].band, COARSEST_BAND, "the farthest");
        let (mut reached, traffic) = crowd(30, 1);
        fit_budget(&mut reached, &traffic, 33_000.0, false);
        assert!(reached.iter().all(|r| r.band == 0));
    }
}
