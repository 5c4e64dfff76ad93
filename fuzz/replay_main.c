/* replay_main.c - run a harness over files without a fuzzing engine (CI smoke, coverage, debugging).
 *
 *   build/fuzz/replay_<target> FILE_OR_DIR...     every regular file (directories: one level) is one input
 *
 * Exit status 0 when every input ran; a violated oracle aborts inside the harness. With no argument it reads one
 * input from standard input. Links with exactly one harness source. */
#define _POSIX_C_SOURCE 200809L
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static unsigned long g_runs;

static int run_stream(FILE *f, const char *name) {
    size_t cap = 4096, n = 0;
    uint8_t *buf = (uint8_t *)malloc(cap), *exact;
    if (!buf) return -1;
    for (;;) {
        size_t got;
        if (n == cap) {
            uint8_t *nb = (uint8_t *)realloc(buf, cap * 2u);
            if (!nb) {
                free(buf);
                return -1;
            }
            buf = nb;
            cap *= 2u;
        }
        got = fread(buf + n, 1, cap - n, f);
        if (got == 0) break;
        n += got;
    }
    /* an exact-size copy, as the engines pass it, so reads past the end are caught */
    exact = (uint8_t *)malloc(n ? n : 1u);
    if (!exact) {
        free(buf);
        return -1;
    }
    if (n) memcpy(exact, buf, n);
    free(buf);
    if (getenv("REPLAY_VERBOSE")) fprintf(stderr, "replay %s (%zu bytes)\n", name, n);
    (void)LLVMFuzzerTestOneInput(exact, n);
    free(exact);
    g_runs++;
    return 0;
}

static int run_file(const char *path) {
    FILE *f = fopen(path, "rb");
    int rc;
    if (!f) {
        fprintf(stderr, "replay: cannot open %s\n", path);
        return -1;
    }
    rc = run_stream(f, path);
    fclose(f);
    return rc;
}

static int run_path(const char *path) {
    struct stat st;
    if (stat(path, &st) != 0) {
        fprintf(stderr, "replay: no such file or directory: %s\n", path);
        return -1;
    }
    if (S_ISDIR(st.st_mode)) {
        struct dirent **ents;
        int n = scandir(path, &ents, NULL, alphasort), i, rc = 0;
        if (n < 0) return -1;
        for (i = 0; i < n; i++) {
            char full[4096];
            struct stat fs;
            if (ents[i]->d_name[0] != '.') {
                snprintf(full, sizeof full, "%s/%s", path, ents[i]->d_name);
                if (stat(full, &fs) == 0 && S_ISREG(fs.st_mode) && run_file(full) != 0) rc = -1;
            }
            free(ents[i]);
        }
        free(ents);
        return rc;
    }
    return run_file(path);
}

int main(int argc, char **argv) {
    int i, rc = 0;
    if (argc < 2) {
        rc = run_stream(stdin, "<stdin>");
    } else {
        for (i = 1; i < argc; i++)
            if (run_path(argv[i]) != 0) rc = 1;
    }
    printf("replayed %lu inputs%s\n", g_runs, rc ? " (some paths could not be read)" : "");
    return rc;
}
