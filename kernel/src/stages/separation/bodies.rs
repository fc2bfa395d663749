//! Bodies: each unit's shield as the sweeps read it, placed in hash order,
//! its class (small, big, airborne) and the layers and census that bound
//! how far a search must reach; the stage's own hash rebuilt when units
//! have drifted.

use super::*;

/// One unit's shield, prepared once per pass, with its current centre.
///
/// `#[repr(C)]` with the centre and radius first, so that a bounding sphere
/// is one 16-byte load ([`meeting_lanes`]).
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(super) struct Body {
    /// `(x, y, altitude)`, updated with every push.
    pub(super) centre: Vec3,
    /// Bounding-sphere radius (largest semi-axis).
    pub(super) radius: f32,
    /// Vertical semi-axis.
    pub(super) half_height: f32,
    pub(super) shape: Shape,
    /// Smallest semi-axis.
    pub(super) smallest: f32,
    pub(super) inv_mass: f32,
    /// How far a small unit's hashed position may be from this one's and
    /// the two still overlap, pushes aside: the radius and the unit's own
    /// travel plus the largest radius and travel of the layers its shield
    /// meets ([`reach`]); [`Context::search`] adds the pushes.
    pub(super) reach: f32,
    /// Whether the last pushing sweep found the unit overlapping or pushed
    /// it (true until a sweep has run): a pair of inactive units cannot
    /// overlap, so later sweeps start only from active ones.
    pub(super) active: bool,
    /// `4 × class + spans`, where `class` is the unit's [`Class`] and bit
    /// `k` of `spans` is set when its shield spans an altitude of layer `k`
    /// ([`Layer::spans`]): where [`Context::search`] finds what pushes add
    /// to the unit's search ([`Slack::by_key`]).
    pub(super) slack_key: u8,
    /// The unit's mobility class: whose map's walls keep it off blocked
    /// cells.
    pub(super) mobility: u8,
    /// The unit direction of the part of its last step the ground cut
    /// short (zero if none since it last moved towards it): a partner
    /// pushing it that way moves itself instead ([`shares`]).
    pub(super) wall: Vec2,
}

impl Body {
    /// The unit's [`Class`], as an index.
    #[inline]
    pub(super) fn class(&self) -> usize {
        usize::from(self.slack_key >> 2)
    }

    /// Whether the unit's shield spans an altitude of layer `k`.
    #[inline]
    pub(super) fn spans(&self, k: usize) -> bool {
        self.slack_key & (1 << k) != 0
    }
}

/// The classes of units whose pushes are tracked apart, because their
/// windows reach for different partners: small units on the ground and
/// airborne ones (the two [`Layer`]s), and big units. Helicopters pushed
/// metres apart above a jam need not widen every tank's window.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub(super) enum Class {
    Ground = 0,
    Airborne = 1,
    Big = 2,
}

impl Class {
    /// The class of a unit of bounding radius `radius` at `altitude`, big
    /// above `big_radius`.
    #[inline]
    pub(super) fn of(radius: f32, altitude: f32, big_radius: f32) -> Class {
        match (radius > big_radius, altitude != 0.0) {
            (true, _) => Class::Big,
            (false, true) => Class::Airborne,
            (false, false) => Class::Ground,
        }
    }
}

/// The largest pushes since the hash was built, summed, by [`Class`]: how
/// far pushes may have carried a unit of each class from where the hash saw
/// it.
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Slack(pub(super) [f32; 3]);

impl Slack {
    /// The slack after one more push, whose largest step in each class is
    /// `largest`.
    pub(super) fn after(self, largest: Slack) -> Slack {
        Slack([0, 1, 2].map(|k| self.0[k] + largest.0[k]))
    }

    /// What pushes add to the search of a unit, by its [`Body::slack_key`]
    /// (its class and the layers its shield spans): its own class's slack,
    /// as it may have been pushed from where the hash saw it, plus the
    /// largest slack of those layers, as its partners may have been.
    pub(super) fn by_key(self) -> [f32; 16] {
        // Keys run to 11; the table is padded to 16 so that a key masked
        // with 15 needs no bounds check.
        std::array::from_fn(|key| {
            let (class, spans) = (key / 4, key % 4);
            let layer = |k: usize| {
                if spans & (1 << k) != 0 {
                    self.0[k]
                } else {
                    0.0
                }
            };
            self.0
                .get(class)
                .map_or(0.0, |own| own + layer(0).max(layer(1)))
        })
    }
}

/// The small units of one layer (on the ground, or airborne): their largest
/// bounding radius and the altitudes their shields span. A unit whose shield
/// spans no altitude of the layer cannot overlap any of its units, so its
/// search need not reach for them (ground units need not look as far as the
/// helicopters' shields above them).
#[derive(Clone, Copy, Debug)]
pub(super) struct Layer {
    pub(super) radius: f32,
    /// The largest ground distance of a unit from where the hash saw it.
    pub(super) travel: f32,
    /// The smallest semi-axis.
    pub(super) smallest: f32,
    pub(super) low: f32,
    pub(super) high: f32,
    /// How many units the layer holds.
    pub(super) units: usize,
}

impl Layer {
    const EMPTY: Layer = Layer {
        radius: 0.0,
        units: 0,
        travel: 0.0,
        smallest: f32::INFINITY,
        low: f32::INFINITY,
        high: f32::NEG_INFINITY,
    };

    /// The layer with `body` in it, `travel` from where the hash saw it.
    #[inline]
    pub(super) fn with(self, body: &Body, travel: f32) -> Layer {
        Layer {
            radius: self.radius.max(body.radius),
            travel: self.travel.max(travel),
            smallest: self.smallest.min(body.smallest),
            low: self.low.min(body.centre.z - body.half_height),
            high: self.high.max(body.centre.z + body.half_height),
            units: self.units + 1,
        }
    }

    /// The layer of the units of both.
    pub(super) fn combine(self, other: Layer) -> Layer {
        Layer {
            radius: self.radius.max(other.radius),
            travel: self.travel.max(other.travel),
            smallest: self.smallest.min(other.smallest),
            low: self.low.min(other.low),
            high: self.high.max(other.high),
            units: self.units + other.units,
        }
    }

    /// The layer once a hash has been built from its units' current
    /// positions: none has travelled from where the hash saw it.
    pub(super) fn hashed_in_place(self) -> Layer {
        Layer {
            travel: 0.0,
            ..self
        }
    }

    /// Whether `body`'s shield spans an altitude of the layer.
    #[inline]
    pub(super) fn spans(&self, body: &Body) -> bool {
        (body.centre.z - body.half_height <= self.high)
            & (self.low <= body.centre.z + body.half_height)
    }
}

/// What a pass needs to know of all its units at once: the layers of the
/// small ones (on the ground, at altitude 0, and the rest), and the big
/// ones' count and travel.
#[derive(Clone, Copy, Debug)]
pub(super) struct Census {
    pub(super) layers: [Layer; 2],
    /// The largest ground distance of a big unit from where the hash saw it.
    pub(super) big_travel: f32,
    /// How many units are big.
    pub(super) big_units: usize,
}

impl Census {
    const EMPTY: Census = Census {
        layers: [Layer::EMPTY; 2],
        big_travel: 0.0,
        big_units: 0,
    };

    /// The census with `body`, of `class`, `travel` from where the hash
    /// saw it.
    #[inline]
    pub(super) fn with(mut self, body: &Body, class: Class, travel: f32) -> Census {
        if class == Class::Big {
            self.big_travel = self.big_travel.max(travel);
            self.big_units += 1;
        } else {
            let layer = &mut self.layers[class as usize];
            *layer = layer.with(body, travel);
        }
        self
    }

    /// The largest ground distance of a unit of each [`Class`] from where
    /// the hash saw it.
    pub(super) fn travel(&self) -> [f32; 3] {
        [
            self.layers[0].travel,
            self.layers[1].travel,
            self.big_travel,
        ]
    }

    /// Whether any unit is big.
    pub(super) fn any_big(&self) -> bool {
        self.big_units > 0
    }

    /// How many units there are of each [`Class`].
    pub(super) fn units(&self) -> [usize; 3] {
        [self.layers[0].units, self.layers[1].units, self.big_units]
    }

    /// The census of the units of both (minima and maxima: the grouping
    /// does not change it).
    pub(super) fn combine(self, other: Census) -> Census {
        Census {
            layers: [0, 1].map(|k| self.layers[k].combine(other.layers[k])),
            big_travel: self.big_travel.max(other.big_travel),
            big_units: self.big_units + other.big_units,
        }
    }
}

/// Whether the stage should rebuild its own hash when the units of each
/// [`Class`] (`units` of them) may be as far as `drift` from where the hash
/// saw them: when they are, on average, more than
/// [`REBUILD_MEAN_DRIFT_CELLS`] of a cell away, or any class more than
/// [`REBUILD_DRIFT_CELLS`].
pub(super) fn should_rebuild(drift: [f32; 3], units: [usize; 3], cell: f32) -> bool {
    let total: usize = units.iter().sum();
    let weighted: f32 = (0..3).map(|k| drift[k] * units[k] as f32).sum();
    let farthest = drift.into_iter().fold(0.0, f32::max);
    weighted > REBUILD_MEAN_DRIFT_CELLS * cell * total as f32
        || farthest > REBUILD_DRIFT_CELLS * cell
}

/// Builds every unit's body into `placed` ([`place_columns`]), sets its
/// reach from its travel and the crowd's layers ([`reach`]) and lists the
/// big units in `big`; returns the census.
pub(super) fn prepare_bodies(
    input: &SeparationInput<'_>,
    position: &[Vec2],
    big_radius: f32,
    placed: &mut [Body],
    big: &mut BigUnits,
) -> Census {
    let census = place_columns(input, position, big_radius, placed);
    for_each_chunk(placed, |_, rows| {
        for body in rows {
            let spans = census.layers.map(|layer| layer.spans(body));
            body.slack_key |= u8::from(spans[0]) | (u8::from(spans[1]) << 1);
            // `reach` holds the unit's own travel until now.
            body.reach = reach(body, body.reach, &census.layers);
        }
    });
    // Without big units the list stays empty: no need to look for them.
    big.list(placed, census.any_big().then_some(big_radius));
    census
}

/// How far from `body`'s hashed position a small unit's hashed position may
/// be and the two still overlap, `travel` being how far `body` is from its
/// own: their centres are less than the sum of their radii apart, and each
/// is its travel from its hashed position, at most its layer's; only the
/// layers its shield spans ([`Body::spans`]) count.
#[inline]
pub(super) fn reach(body: &Body, travel: f32, layers: &[Layer; 2]) -> f32 {
    let partners = |k: usize| {
        let layer = &layers[k];
        let spanned = body.spans(k);
        if spanned {
            layer.radius + layer.travel
        } else {
            0.0
        }
    };
    body.radius + travel + partners(0).max(partners(1))
}

/// Builds every unit's body from the columns and `position` into `placed`,
/// in the tick hash's place order, all active, with its travel from where
/// the hash saw it in place of its reach, and returns their census (units
/// with a radius above `big_radius` big).
pub(super) fn place_columns(
    input: &SeparationInput<'_>,
    position: &[Vec2],
    big_radius: f32,
    placed: &mut [Body],
) -> Census {
    let (order, hashed) = (input.spatial.order(), input.spatial.sorted_positions());
    let build = |first: usize, rows: &mut [Body]| {
        let mut census = Census::EMPTY;
        let groups = rows.chunks_mut(LANES).zip(order[first..].chunks(LANES));
        for (group, (rows, units)) in groups.enumerate() {
            let forward = forward_axes(input.heading, units);
            let hashed = &hashed[first + group * LANES..];
            for (((body, &unit), &hashed), forward) in
                rows.iter_mut().zip(units).zip(hashed).zip(forward)
            {
                let unit = unit as usize;
                let (axes, altitude) = (input.shield[unit], input.altitude[unit]);
                let travel = position[unit].distance(hashed);
                let class = Class::of(axes.max_element(), altitude, big_radius);
                *body = Body {
                    centre: position[unit].extend(altitude),
                    shape: Shape::facing(axes, forward),
                    radius: axes.max_element(),
                    half_height: axes.z,
                    smallest: axes.min_element(),
                    inv_mass: input.inv_mass[unit],
                    // The travel until the layers are known.
                    reach: travel,
                    active: true,
                    // The layers it spans once they are known.
                    slack_key: 4 * class as u8,
                    mobility: input.mobility.get(unit).copied().unwrap_or(0),
                    wall: Vec2::ZERO,
                };
                census = census.with(body, class, travel);
            }
        }
        census
    };
    for_each_chunk_fold(placed, Census::EMPTY, build, Census::combine)
}

/// The forward axes of the shields of `units` (up to [`LANES`]; the rest
/// are left as +x), [`angles::direction`] of their headings, eight in SIMD
/// lanes (the same bits), or one at a time when some heading is beyond
/// what the lanes reduce.
#[inline]
pub(super) fn forward_axes(heading: &[f32], units: &[u32]) -> [Vec2; LANES] {
    let angle = |k: usize| units.get(k).map_or(0.0, |&unit| heading[unit as usize]);
    match angles::direction_lanes(f32x8::new(std::array::from_fn(angle))) {
        Some((cos, sin)) => {
            let (cos, sin) = (cos.to_array(), sin.to_array());
            std::array::from_fn(|k| Vec2::new(cos[k], sin[k]))
        }
        None => std::array::from_fn(|k| angles::direction(angle(k))),
    }
}

/// Rebuilds the stage's own hash `local` from the current centres of
/// `placed` (in the current place order, which are the hash's "units") and
/// copies the bodies into `replaced` in its new place order, all active,
/// their reach without travel (`layers` are the crowd's, hashed in place):
/// one copy of the bodies, where going through unit order took two. Each
/// unit's place is composed: its new place is the new hash's place of its
/// current one, read from `place_of`, or from `tick_places` while the
/// current places are still the tick hash's.
pub(super) fn rebuild_own_hash(
    local: &mut SpatialHash,
    (centres, placed, replaced): (&mut [Vec2], &[Body], &mut [Body]),
    place_of: &mut [u32],
    tick_places: Option<&[u32]>,
    layers: &[Layer; 2],
) {
    for_each_chunk(centres, |first, rows| {
        for (centre, body) in rows.iter_mut().zip(&placed[first..]) {
            *centre = body.centre.truncate();
        }
    });
    local.rebuild(centres);
    let earlier_place = local.order();
    for_each_chunk(replaced, |first, rows| {
        for (body, &earlier) in rows.iter_mut().zip(&earlier_place[first..]) {
            *body = placed[earlier as usize];
            body.reach = reach(body, 0.0, layers);
            body.active = true;
        }
    });
    let new_place = local.places();
    match tick_places {
        Some(tick_places) => for_each_chunk(place_of, |first, rows| {
            for (place, &earlier) in rows.iter_mut().zip(&tick_places[first..]) {
                *place = new_place[earlier as usize];
            }
        }),
        None => for_each_chunk(place_of, |_, rows| {
            for place in rows {
                *place = new_place[*place as usize];
            }
        }),
    }
}

/// Writes the ground positions of `placed` back to the unit-ordered
/// `position`, unit `u` from place `place_of[u]`.
pub(super) fn write_back(placed: &[Body], place_of: &[u32], position: &mut [Vec2]) {
    for_each_chunk(position, |first, rows| {
        for (position, &place) in rows.iter_mut().zip(&place_of[first..]) {
            *position = placed[place as usize].centre.truncate();
        }
    });
}
