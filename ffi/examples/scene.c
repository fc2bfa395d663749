/* A small scene through the convoy C ABI: eight tanks on the Moving AI map
 * arena2 ordered as a group, 20 simulated seconds, arrivals from the event
 * array, the lockstep checksum and a save/restore round trip whose
 * continuation must match the original's. Exits 1 on any failure.
 *
 *   cc ffi/examples/scene.c -Iffi/include target/debug/libconvoy_ffi.a \
 *      -lpthread -ldl -lm -o scene && ./scene profiles/maps/arena2.map
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convoy.h"

#define UNITS 8
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

/* Steps `ticks` ticks, printing each arrival; returns how many arrived. */
static int run(ConvoySim *sim, int ticks, int print) {
    int arrivals = 0;
    for (int tick = 1; tick <= ticks; tick++) {
        check(convoy_step(sim, DT), "convoy_step");
        const ConvoyEvent *events = NULL;
        size_t count = 0;
        check(convoy_events(sim, &events, &count), "convoy_events");
        for (size_t k = 0; k < count; k++) {
            if (events[k].kind != CONVOY_EVENT_ARRIVED) continue;
            arrivals++;
            if (print)
                printf("arrived unit %016llx at %.2f s\n",
                       (unsigned long long)events[k].id, tick * DT);
        }
    }
    return arrivals;
}

int main(int argc, char **argv) {
    const char *map = argc > 1 ? argv[1] : "profiles/maps/arena2.map";
    ConvoySim *sim = new_world(map);

    uint64_t tanks[UNITS];
    for (int k = 0; k < UNITS; k++) {
        float x = 696.0f + 10.0f * (k % 4), y = 700.0f + 10.0f * (k / 4);
        check(convoy_spawn(sim, CONVOY_KIND_TRACKED, x, y, 0, &tanks[k]), "convoy_spawn");
    }
    float spots[2 * UNITS];
    check(convoy_order_group(sim, tanks, UNITS, 716.0f, 600.0f, 0.0f, -1.0f, spots),
          "convoy_order_group");
    run(sim, 20 * 60, 1);

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
        run(worlds[w], 120, 0);
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
    int ok = arrived == UNITS && found == UNITS && twin_sum == saved_sum && sums[0] == sums[1] &&
             stale == CONVOY_STALE_UNIT;
    printf(ok ? "ok\n" : "FAILED\n");
    return ok ? 0 : 1;
}
