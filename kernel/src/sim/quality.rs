//! Movement quality: what the run's units achieved (arrivals, collisions,
//! speed, stuck units, formation error), accumulated tick by tick.

use crate::data::platoons::Platoons;
use crate::stages::steering::SteerStats;

/// Movement quality over the run so far (since the last
/// [`crate::Sim::reset_instruments`]): a change that makes units faster but dumber
/// shows up here.
#[derive(Clone, Copy, Debug, Default, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Quality {
    /// Units within the arrival radius of their drive-to point at the last
    /// tick.
    pub arrived: usize,
    /// Shield overlaps found before the separation pass (collisions
    /// steering did not avoid) per 1,000 unit-ticks.
    pub collisions_per_1000_unit_ticks: f64,
    /// Mean `|velocity| / max_speed` over the unit-ticks steering asked to
    /// move.
    pub mean_speed_fraction: f64,
    /// Units without progress toward their drive-to point for 10 s at the
    /// last tick.
    pub stuck: usize,
    /// Mean distance of platoon members from their slots over the
    /// member-ticks, metres.
    pub formation_error_mean_m: f64,
    /// 95th percentile of that distance, metres (to 0.1 m).
    pub formation_error_p95_m: f64,
    /// Platoons whose members all stood on their destination spots at the
    /// last tick.
    pub platoons_arrived: usize,
}

/// Formation error samples: a histogram of 0.1 m bins (the last bin holds
/// everything beyond) and an exact sum.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct FormationErrors {
    pub(super) bins: Vec<u64>,
    pub(super) sum_m: f64,
    pub(super) samples: u64,
}

/// Width of a formation-error histogram bin, metres.
pub(super) const ERROR_BIN_M: f64 = 0.1;
/// Bins in the formation-error histogram (the last takes the overflow).
pub(super) const ERROR_BINS: usize = 2048;

impl Default for FormationErrors {
    fn default() -> FormationErrors {
        FormationErrors {
            bins: vec![0; ERROR_BINS],
            sum_m: 0.0,
            samples: 0,
        }
    }
}

impl FormationErrors {
    pub(super) fn add(&mut self, platoons: &Platoons) {
        for (_, platoon) in platoons.iter() {
            for &error in platoon.error.iter().filter(|error| error.is_finite()) {
                let bin = (f64::from(error) / ERROR_BIN_M) as usize;
                self.bins[bin.min(ERROR_BINS - 1)] += 1;
                self.sum_m += f64::from(error);
                self.samples += 1;
            }
        }
    }

    pub(super) fn mean(&self) -> f64 {
        if self.samples == 0 {
            0.0
        } else {
            self.sum_m / self.samples as f64
        }
    }

    /// The upper edge of the bin holding the 95th percentile.
    pub(super) fn p95(&self) -> f64 {
        let wanted = (self.samples as f64 * 0.95).ceil() as u64;
        let mut seen = 0;
        for (bin, &count) in self.bins.iter().enumerate() {
            seen += count;
            if seen >= wanted && seen > 0 {
                return (bin + 1) as f64 * ERROR_BIN_M;
            }
        }
        0.0
    }
}

/// Running sums behind [`Quality`].
#[derive(Clone, Debug, Default, PartialEq)]
pub(super) struct QualityTotals {
    pub(super) unit_ticks: u64,
    pub(super) collisions: u64,
    pub(super) driving_unit_ticks: u64,
    pub(super) speed_fraction_sum: u64,
    pub(super) last: SteerStats,
    pub(super) formation: FormationErrors,
    pub(super) platoons_arrived: usize,
}
