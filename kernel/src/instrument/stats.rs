//! Typed stage statistics: one struct of figures per stage, folded tick by
//! tick over the run (as rapier's `StagesCounters`). The report's counters
//! and the budget table are written from these, under the field names.

use serde::Serialize;

/// Declares one stage's figures, each with how ticks fold into the run's
/// figure: `sum` (total), `mean` (per tick) or `max` (largest tick).
macro_rules! stage_figures {
    ($(#[$meta:meta])* $name:ident { $( $(#[doc = $doc:expr])* $field:ident : $fold:ident ),* $(,)? }) => {
        $(#[$meta])*
        #[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
        pub struct $name {
            $( $(#[doc = $doc])* pub $field: f64, )*
        }

        impl $name {
            /// Folds one tick's figures into the run's sums and maxima.
            pub(crate) fn fold(&mut self, tick: $name) {
                $( stage_figures!(@fold $fold, self.$field, tick.$field); )*
            }

            /// The run's figures over `ticks` ticks: means divided out.
            fn over(&self, ticks: u64) -> $name {
                $name { $( $field: stage_figures!(@over $fold, self.$field, ticks), )* }
            }

            /// Each figure under its name, in declaration order.
            #[must_use]
            pub fn named(&self) -> Vec<(&'static str, f64)> {
                vec![$( (stringify!($field), self.$field) ),*]
            }
        }
    };
    (@fold max, $run:expr, $tick:expr) => { $run = $run.max($tick) };
    (@fold $any:ident, $run:expr, $tick:expr) => { $run += $tick };
    (@over mean, $run:expr, $ticks:expr) => { if $ticks == 0 { 0.0 } else { $run / $ticks as f64 } };
    (@over $any:ident, $run:expr, $ticks:expr) => {{ let _ = $ticks; $run }};
}

stage_figures! {
    /// The `spatial` stage.
    SpatialFigures {
        /// Ticks whose rows were reordered into cell order.
        reorders: sum,
        /// Units in the largest cell.
        max_cell_units: max,
        /// Units clamped in from outside the bounds, at most.
        outside_bounds: max,
    }
}

stage_figures! {
    /// The `paths` stage.
    PathsFigures {
        /// Requests answered with a route.
        served: sum,
        /// Requests dropped (requester gone or overtaken).
        dropped: sum,
        /// Requests whose goal could not be reached.
        unreachable: sum,
        /// Requests the stage itself made (bad-position checks, cut routes).
        requested: sum,
        /// Nodes expanded per tick.
        expanded: mean,
        /// Search work per tick, cells.
        work_cells: mean,
        /// Most search work in one tick, cells.
        max_work_cells: max,
        /// Longest queue.
        queue_len: max,
        /// Most searches in flight.
        in_flight: max,
    }
}

stage_figures! {
    /// The `formations` stage.
    FormationsFigures {
        /// Units in no platoon, per tick.
        solo_units: mean,
        /// Platoons, per tick.
        platoons: mean,
        /// Platoons moving along their paths, per tick.
        moving_platoons: mean,
        /// Platoons waiting for a straggler, per tick.
        waiting_platoons: mean,
        /// Slots pulled toward the path (softened), per tick.
        softened_slots: mean,
        /// Platoons at a bridge, per tick.
        platoons_at_bridge: mean,
        /// Platoons arrived, at most.
        platoons_arrived: max,
    }
}

stage_figures! {
    /// The `steering` stage.
    SteeringFigures {
        /// Units within the arrival radius of their drive-to point, per tick.
        arrived_units: mean,
        /// Units steering around a predicted collision, per tick.
        avoiding_units: mean,
        /// Units stopped because their drive-to point is next to a threat.
        stopped_for_threat: mean,
        /// Units stuck, at most.
        stuck_units: max,
        /// The most candidate neighbours one unit examined in one tick.
        most_candidates: max,
        /// Units whose neighbour search a dense run cut short, per tick.
        cut_searches: mean,
    }
}

stage_figures! {
    /// The `integrate` stage.
    IntegrateFigures {
        /// Units moving, per tick.
        moving_units: mean,
        /// Units a wall stopped, per tick.
        stopped_at_walls: mean,
    }
}

stage_figures! {
    /// The `separation` stage.
    SeparationFigures {
        /// Pairs whose bounding spheres were tested, per tick.
        pairs_tested: mean,
        /// Pairs given the exact ellipsoid test, per tick.
        exact_tests: mean,
        /// Overlapping pairs found, per tick.
        overlaps: mean,
        /// Pushing sweeps, per tick.
        iterations: mean,
        /// Most pushing sweeps in one tick.
        max_iterations: max,
        /// Ticks whose pass stopped at the iteration cap still overlapping.
        capped_ticks: sum,
        /// Deepest overlap left after a pass, metres.
        max_overlap_m: max,
        /// Deepest overlap left, as a fraction of the smaller shield's
        /// smallest semi-axis.
        max_overlap_rel: max,
        /// The most candidates one unit examined in one sweep.
        most_candidates: max,
        /// Searches a dense run cut short, over a tick's sweeps, per tick.
        cut_searches: mean,
    }
}

/// Every stage's figures over the run so far.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize)]
pub struct StageStats {
    /// The `spatial` stage.
    pub spatial: SpatialFigures,
    /// The `paths` stage.
    pub paths: PathsFigures,
    /// The `formations` stage.
    pub formations: FormationsFigures,
    /// The `steering` stage.
    pub steering: SteeringFigures,
    /// The `integrate` stage.
    pub integrate: IntegrateFigures,
    /// The `separation` stage.
    pub separation: SeparationFigures,
}

impl StageStats {
    /// The run's figures over `ticks` ticks (the fold keeps sums of means).
    pub(crate) fn over(&self, ticks: u64) -> StageStats {
        StageStats {
            spatial: self.spatial.over(ticks),
            paths: self.paths.over(ticks),
            formations: self.formations.over(ticks),
            steering: self.steering.over(ticks),
            integrate: self.integrate.over(ticks),
            separation: self.separation.over(ticks),
        }
    }

    /// One stage's figures under their names.
    #[must_use]
    pub fn named(&self, stage: super::Stage) -> Vec<(&'static str, f64)> {
        use super::Stage;
        match stage {
            Stage::Spatial => self.spatial.named(),
            Stage::Paths => self.paths.named(),
            Stage::Formations => self.formations.named(),
            Stage::Steering => self.steering.named(),
            Stage::Integrate => self.integrate.named(),
            Stage::Separation => self.separation.named(),
        }
    }
}
