/* bench_load.c — is the machine busy with something else while `clforge bench` measures? Compares the CPU
 * time all processes used (/proc/stat) with the time this process used (getrusage: every thread, the
 * OpenCL driver's included) over the same wall-clock interval; the difference is other processes' work. */
#include "bench.h"

#include <stdio.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int cli_load_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (int)n : 1;
}

void cli_load_snapshot(cli_load *l)
{
    l->wall = now_s();
    l->busy = -1;
    FILE *f = fopen("/proc/stat", "r");
    unsigned long long v[8] = {0};
    if (f) {
        if (fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
                   &v[7]) == 8) {
            long hz = sysconf(_SC_CLK_TCK);
            /* user nice system idle iowait irq softirq steal: idle and iowait are not work */
            l->busy = (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)(hz > 0 ? hz : 100);
        }
        fclose(f);
    }
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    l->own = (double)ru.ru_utime.tv_sec + 1e-6 * (double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_sec +
             1e-6 * (double)ru.ru_stime.tv_usec;
    l->loadavg = -1;
    if ((f = fopen("/proc/loadavg", "r"))) {
        if (fscanf(f, "%lf", &l->loadavg) != 1) l->loadavg = -1;
        fclose(f);
    }
}

double cli_load_others(const cli_load *a, const cli_load *b)
{
    double dt = b->wall - a->wall;
    if (a->busy < 0 || b->busy < 0 || dt <= 0.05) return -1;   /* no /proc/stat, or too short to say */
    double others = ((b->busy - a->busy) - (b->own - a->own)) / dt;
    return others > 0 ? others : 0;
}

int cli_load_is_busy(double others)
{
    double cores = cli_load_cores();
    return others >= 0 && others >= (0.1 * cores > 0.2 ? 0.1 * cores : 0.2);
}

double cli_load_idle_probe(double seconds)
{
    cli_load a, b;
    cli_load_snapshot(&a);
    struct timespec ts = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&ts, NULL);
    cli_load_snapshot(&b);
    return cli_load_others(&a, &b);
}
