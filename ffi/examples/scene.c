/* A small scene through the convoy C ABI on the Moving AI map arena2: eight
 * tanks ordered as a group (20 simulated seconds, arrivals from the event
 * array), one tank retuned, a platoon of four formed, ordered and
 * disbanded, a wall placed on a tank, the lockstep checksum and a
 * save/restore round trip whose continuation must match the original's.
 * Then, on the river-crossing polygon map, a tank goes round an obstacle
 * added at run time, and the obstacle and the bridge are taken off.
 * Exits 1 on any failure.
 *
 *   cc ffi/examples/scene.c -Iffi/include target/debug/libconvoy_ffi.a \
 *      -lpthread -ldl -lm -o scene && \
 *      ./scene profiles/maps/arena2.map profiles/maps/river_crossing.json
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convoy.h"

#define UNITS 8
#define PLATOON 4
#define DT (1.0f / 60.0f)

/* Fails the program with the call's status and the library's message. */
static void check(ConvoyStatus status, const char *call) {
    if (status != CONVOY_OK) {
        fprintf(stderr, "%s failed (status %d): %s\n", call, (int)status,
                convoy_last_error_message());
        exit(1);
    }
}

/* A world on arena2 (8 m cells, cell (0, 0) at the origin). */
static ConvoySim *new_world(const char *map_path) {
    ConvoyConfig config = convoy_config_default();
    config.map_path = map_path;
    config.cell_size = 8.0f;
    config.min_x = -50.0f;
    config.min_y = -50.0f;
    config.max_x = 281 * 8.0f + 50.0f;
    config.max_y = 209 * 8.0f + 50.0f;
    ConvoySim *sim = NULL;
    check(convoy_sim_new(&config, &sim), "convoy_sim_new");
    return sim;
}

/* Whether `unit` is one of the `count` handles of `list`. */
static int listed(uint64_t unit, const uint64_t *list, int count) {
    for (int k = 0; k < count; k++)
        if (list[k] == unit) return 1;
    return 0;
}

/* Steps `ticks` ticks; with `print`, prints each arrival of a unit of
 * `watch` (`count` handles), each platoon arrival and each displaced unit.
 * Returns how many of `watch` arrived. */
static int run(ConvoySim *sim, int ticks, int print, const uint64_t *watch, int count) {
    int arrivals = 0;
    for (int tick = 1; tick <= ticks; tick++) {
        check(convoy_step(sim, DT), "convoy_step");
        const ConvoyEvent *events = NULL;
        size_t n = 0;
        check(convoy_events(sim, &events, &n), "convoy_events");
        for (size_t k = 0; k < n; k++) {
            unsigned long long id = (unsigned long long)events[k].id;
            if (events[k].kind == CONVOY_EVENT_ARRIVED && listed(events[k].id, watch, count)) {
                arrivals++;
                if (print) printf("arrived unit %016llx at %.2f s\n", id, tick * DT);
            } else if (print && events[k].kind == CONVOY_EVENT_PLATOON_ARRIVED) {
                printf("platoon arrived %016llx\n", id);
            } else if (print && events[k].kind == CONVOY_EVENT_DISPLACED) {
                printf("displaced unit %016llx\n", id);
            }
        }
    }
    return arrivals;
}

/* Halves a tank's top speed through its parameters and shows that a bad
 * value is refused by name; returns 1 when both behave. */
static int retune(ConvoySim *sim, uint64_t tank) {
    ConvoyUnitParams params;
    check(convoy_unit_params(sim, tank, &params), "convoy_unit_params");
    float before = params.max_speed;
    params.max_speed = before / 2.0f;
    check(convoy_set_unit_params(sim, tank, &params), "convoy_set_unit_params");
    params.max_speed = -1.0f;
    ConvoyStatus bad = convoy_set_unit_params(sim, tank, &params);
    printf("bad params: status %d, %s\n", (int)bad, convoy_last_error_message());
    check(convoy_unit_params(sim, tank, &params), "convoy_unit_params");
    printf("top speed %.1f -> %.1f m/s\n", before, params.max_speed);
    return bad == CONVOY_BAD_ARGUMENT && params.max_speed == before / 2.0f;
}

/* Forms four tanks into a column platoon, orders it 130 m south (-y) facing
 * south, runs until it arrives and disbands it; returns 1 when it arrived
 * at its goal and its handle is refused after. */
static int platoon(ConvoySim *sim) {
    uint64_t members[PLATOON];
    for (int k = 0; k < PLATOON; k++)
        check(convoy_spawn(sim, CONVOY_KIND_TRACKED, 610.0f + 10.0f * k, 690.0f, 0, &members[k]),
              "convoy_spawn");
    ConvoyPlatoonSpec spec = convoy_platoon_spec_force21();
    spec.formation = CONVOY_FORMATION_COLUMN;
    uint64_t id = 0;
    check(convoy_create_platoon(sim, members, PLATOON, &spec, &id), "convoy_create_platoon");
    const float south = -1.5707964f; /* radians from +x (east) */
    check(convoy_order_platoon(sim, id, 625.0f, 560.0f, &south), "convoy_order_platoon");
    ConvoyPlatoonState state;
    int ticks = 0;
    do {
        run(sim, 60, 1, NULL, 0);
        ticks += 60;
        check(convoy_platoon_state(sim, id, &state), "convoy_platoon_state");
    } while (state.phase != CONVOY_PHASE_ARRIVED && ticks < 60 * 60);
    float miss = hypotf(state.x - 625.0f, state.y - 560.0f);
    printf("platoon phase %d with %u members, %.1f m from its goal, after %d s\n", state.phase,
           state.members, miss, ticks / 60);
    check(convoy_disband_platoon(sim, id), "convoy_disband_platoon");
    ConvoyStatus gone = convoy_platoon_state(sim, id, &state);
    printf("disbanded platoon: status %d\n", (int)gone);
    return state.phase == CONVOY_PHASE_ARRIVED && miss < 10.0f && gone == CONVOY_STALE_PLATOON;
}

/* The row of `unit`, or `rows` if it has none. */
static size_t row_of(ConvoySim *sim, uint64_t unit) {
    const ConvoyUnitId *ids = NULL;
    size_t rows = 0, row = 0;
    check(convoy_unit_ids(sim, &ids, &rows), "convoy_unit_ids");
    while (row < rows && convoy_unit_handle(ids[row]) != unit) row++;
    return row;
}

/* The grid cell under `unit`. */
static void cell_of(ConvoySim *sim, uint64_t unit, uint32_t *x, uint32_t *y) {
    const float *xy = NULL;
    size_t rows = 0, row = row_of(sim, unit);
    check(convoy_positions(sim, &xy, &rows), "convoy_positions");
    if (row == rows) {
        fprintf(stderr, "unit %016llx has no row\n", (unsigned long long)unit);
        exit(1);
    }
    check(convoy_cell_at(sim, xy[2 * row], xy[2 * row + 1], x, y), "convoy_cell_at");
}

/* Walls the cell under `tank` and steps once: the tank must be moved off
 * it and reported. Returns 1 when it was, and a bad terrain was refused. */
static int wall_on(ConvoySim *sim, uint64_t tank) {
    uint32_t x = 0, y = 0, after_x = 0, after_y = 0;
    cell_of(sim, tank, &x, &y);
    ConvoyStatus bad = convoy_set_cells(sim, x, y, x, y, 9);
    printf("bad terrain: status %d\n", (int)bad);
    check(convoy_set_cells(sim, x, y, x, y, CONVOY_TERRAIN_BLOCKED), "convoy_set_cells");
    run(sim, 1, 1, NULL, 0);
    cell_of(sim, tank, &after_x, &after_y);
    printf("walled cell (%u, %u) under unit %016llx, now on (%u, %u)\n", x, y,
           (unsigned long long)tank, after_x, after_y);
    return bad == CONVOY_BAD_ARGUMENT && (after_x != x || after_y != y);
}

/* On the polygon map at `path` (river_crossing.json: 1 km square, a river
 * at x = 470 to 530 with bridge 1): a square obstacle added at run time on
 * a tank's straight way east, which the tank must go round. Returns 1 when
 * it arrived with a detour, and the obstacle and the bridge came off. */
static int polygon_world(const char *path) {
    ConvoyConfig config = convoy_config_default();
    config.polygon_path = path;
    config.cell_size = 5.0f; /* the raster for the tick's local checks */
    config.clearance = 4.0f; /* obstacles grow by it for route planning */
    ConvoySim *sim = NULL;
    check(convoy_sim_new(&config, &sim), "convoy_sim_new (polygon map)");
    const float square[8] = {740.0f, 650.0f, 810.0f, 650.0f, 810.0f, 750.0f, 740.0f, 750.0f};
    uint32_t obstacle = 0;
    check(convoy_add_obstacle(sim, square, 4, &obstacle), "convoy_add_obstacle");
    uint64_t tank = 0;
    check(convoy_spawn(sim, CONVOY_KIND_TRACKED, 600.0f, 700.0f, 0, &tank), "convoy_spawn");
    check(convoy_order_move(sim, tank, 950.0f, 700.0f, NULL), "convoy_order_move");
    float widest = 0.0f;
    uint8_t state = CONVOY_MOVE_WAITING_FOR_PATH;
    for (int tick = 0; tick < 60 * 60 && state != CONVOY_MOVE_ARRIVED; tick++) {
        check(convoy_step(sim, DT), "convoy_step");
        const float *xy = NULL;
        size_t rows = 0;
        check(convoy_positions(sim, &xy, &rows), "convoy_positions");
        widest = fmaxf(widest, fabsf(xy[1] - 700.0f));
        check(convoy_move_state(sim, tank, &state), "convoy_move_state");
    }
    printf("obstacle %u: detour %.0f m off the straight way, move state %d\n", obstacle, widest,
           (int)state);
    check(convoy_remove_obstacle(sim, obstacle), "convoy_remove_obstacle");
    const uint16_t told[1] = {0}; /* the factions that know at once */
    check(convoy_remove_bridge(sim, 1, told, 1), "convoy_remove_bridge");
    ConvoyStatus unknown = convoy_remove_bridge(sim, 9, told, 1);
    printf("unknown bridge: status %d, %s\n", (int)unknown, convoy_last_error_message());
    convoy_sim_free(sim);
    return state == CONVOY_MOVE_ARRIVED && widest > 50.0f && unknown == CONVOY_BAD_ARGUMENT;
}

int main(int argc, char **argv) {
    const char *map = argc > 1 ? argv[1] : "profiles/maps/arena2.map";
    const char *polygons = argc > 2 ? argv[2] : "profiles/maps/river_crossing.json";
    ConvoySim *sim = new_world(map);

    uint64_t tanks[UNITS];
    for (int k = 0; k < UNITS; k++) {
        float x = 696.0f + 10.0f * (k % 4), y = 700.0f + 10.0f * (k / 4);
        check(convoy_spawn(sim, CONVOY_KIND_TRACKED, x, y, 0, &tanks[k]), "convoy_spawn");
    }
    float spots[2 * UNITS];
    check(convoy_order_group(sim, tanks, UNITS, 716.0f, 600.0f, 0.0f, -1.0f, spots),
          "convoy_order_group");
    run(sim, 20 * 60, 1, tanks, UNITS);

    int arrived = 0;
    for (int k = 0; k < UNITS; k++) {
        uint8_t state = 0;
        check(convoy_move_state(sim, tanks[k], &state), "convoy_move_state");
        arrived += state == CONVOY_MOVE_ARRIVED;
    }
    printf("at their goals: %d of %d\n", arrived, UNITS);

    uint64_t near[UNITS];
    size_t found = 0;
    check(convoy_units_within(sim, 716.0f, 600.0f, 60.0f, CONVOY_ANY, CONVOY_ANY, near,
                              UNITS, &found),
          "convoy_units_within");
    printf("within 60 m of the goal: %zu\n", found);

    /* Map rows to units through the unit_id column: each stands on its spot. */
    const float *xy = NULL;
    const ConvoyUnitId *ids = NULL;
    size_t rows = 0, id_rows = 0;
    check(convoy_positions(sim, &xy, &rows), "convoy_positions");
    check(convoy_unit_ids(sim, &ids, &id_rows), "convoy_unit_ids");
    for (size_t row = 0; row < rows; row++) {
        uint64_t unit = convoy_unit_handle(ids[row]);
        for (int k = 0; k < UNITS; k++) {
            float dx = xy[2 * row] - spots[2 * k], dy = xy[2 * row + 1] - spots[2 * k + 1];
            if (tanks[k] == unit && dx * dx + dy * dy > 3.0f * 3.0f) {
                fprintf(stderr, "unit %d stands %.1f m off its spot\n", k, sqrtf(dx * dx + dy * dy));
                return 1;
            }
        }
    }

    int retuned = retune(sim, tanks[3]);
    int formed = platoon(sim);
    int walled = wall_on(sim, tanks[2]);

    uint64_t saved_sum = 0;
    check(convoy_checksum(sim, &saved_sum), "convoy_checksum");
    printf("checksum %016llx\n", (unsigned long long)saved_sum);
    const uint8_t *bytes = NULL;
    size_t len = 0;
    check(convoy_save(sim, &bytes, &len), "convoy_save");
    uint8_t *copy = malloc(len);
    if (copy == NULL) return 1;
    memcpy(copy, bytes, len);
    printf("snapshot %zu bytes\n", len);

    /* The original and a fresh world restored from the copy, given the
     * same order and steps, must stay identical. */
    ConvoySim *twin = new_world(map);
    check(convoy_restore(twin, copy, len), "convoy_restore");
    free(copy);
    uint64_t twin_sum = 0;
    check(convoy_checksum(twin, &twin_sum), "convoy_checksum");
    printf("restored checksum %016llx\n", (unsigned long long)twin_sum);
    ConvoySim *worlds[2] = {sim, twin};
    uint64_t sums[2];
    for (int w = 0; w < 2; w++) {
        check(convoy_order_move(worlds[w], tanks[0], 760.0f, 640.0f, NULL), "convoy_order_move");
        run(worlds[w], 120, 0, NULL, 0);
        check(convoy_checksum(worlds[w], &sums[w]), "convoy_checksum");
    }
    printf("after 2 s more: %016llx and %016llx\n", (unsigned long long)sums[0],
           (unsigned long long)sums[1]);

    /* A despawned unit's handle is refused with a message. */
    check(convoy_despawn(sim, tanks[1]), "convoy_despawn");
    uint8_t state = 0;
    ConvoyStatus stale = convoy_move_state(sim, tanks[1], &state);
    printf("stale handle: status %d, %s\n", (int)stale, convoy_last_error_message());

    convoy_sim_free(twin);
    convoy_sim_free(sim);
    int detoured = polygon_world(polygons);
    int ok = arrived == UNITS && found == UNITS && twin_sum == saved_sum && sums[0] == sums[1] &&
             stale == CONVOY_STALE_UNIT && retuned && formed && walled && detoured;
    printf(ok ? "ok\n" : "FAILED\n");
    return ok ? 0 : 1;
}
