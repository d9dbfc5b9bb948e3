/* tune.c — clf_tune: runs the search over each family, precision and bucket with the family's time
 * budget shared among them, collects the report, and logs the run in the tuning database. */
#include "autotune.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

int clf__listed(const char *list, const char *name)
{
    if (!list)
        return 1;
    size_t n = strlen(name);
    for (const char *p = list; (p = strstr(p, name)) != NULL; p += n)
        if ((p == list || p[-1] == ',') && (p[n] == '\0' || p[n] == ','))
            return 1;
    return 0;
}

clf_status clf__tune_families(clf_context *ctx, const clf__family *const *families,
                              const clf_dtype *precisions, int nprecisions, const char *buckets,
                              const clf_tune_options *opt, clf_tune_report *report)
{
    if (!ctx || !families || !opt || !report)
        return clf__fail(CLF_ERR_INVALID_ARG, "tune: NULL argument");
    static const clf_dtype def_prec[] = {CLF_F32, CLF_F64};
    const clf_dtype *asked = precisions;
    int nasked = nprecisions;
    double budget = opt->budget_seconds > 0 ? opt->budget_seconds : 60;
    double t0 = clf__now();
    clf__rng rng = {(uint64_t)time(NULL) ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)ctx};
    memset(report, 0, sizeof *report);
    snprintf(report->db_path, sizeof report->db_path, "%s", clf__tunedb_path(ctx));
    int interrupted = 0, total_evals = 0;
    clf_status store_err = CLF_SUCCESS;
    for (int fi = 0; families[fi] && !interrupted; fi++) {
        const clf__family *f = families[fi];
        /* Precisions: the caller's, else the family's own list, else f32 (and f64 where the device has it). */
        precisions = asked ? asked : f->nprecisions ? f->precisions : def_prec;
        nprecisions = asked ? nasked : f->nprecisions ? f->nprecisions : ctx->info.fp64 ? 2 : 1;
        int nb = f->nbuckets > 0 ? f->nbuckets : 1, nsel = 0;
        for (int b = 0; b < nb; b++)
            nsel += clf__listed(buckets, clf__bucket_name(f, f->nbuckets > 0 ? f->buckets[b] : NULL));
        /* The family's budget is shared by its tasks, f32 weighted twice: it matters most. Time a
         * task leaves unused flows to the ones after it. */
        double fam_end = clf__now() + budget, weight_left = 0;
        for (int p = 0; p < nprecisions; p++)
            weight_left += nsel * (precisions[p] == CLF_F32 ? 2.0 : 1.0);
        for (int p = 0; p < nprecisions && !interrupted; p++)
            for (int b = 0; b < nb && !interrupted; b++) {
                if (!clf__listed(buckets, clf__bucket_name(f, f->nbuckets > 0 ? f->buckets[b] : NULL)))
                    continue;
                double w = precisions[p] == CLF_F32 ? 2.0 : 1.0;
                double left = fam_end - clf__now();
                double share = left > 0 ? left * w / weight_left : 0;
                weight_left -= w;
                clf_tune_entry e;
                clf_status s = clf__tune_task(ctx, f, precisions[p],
                                              clf__bucket_name(f, f->nbuckets > 0 ? f->buckets[b] : NULL), opt,
                                              share, clf__rng_next(&rng), &e);
                if (s == CLF_ERR_IO)
                    store_err = s;
                if (s != CLF_ERR_UNSUPPORTED && report->count < (int)(sizeof report->entries / sizeof report->entries[0]))
                    report->entries[report->count++] = e;
                total_evals += e.evaluations;
                if (opt->stop && *opt->stop)
                    interrupted = 1;
            }
    }
    /* A log of runs: lets concurrent tuners (and people) see that nothing was lost. */
    char date[32], fams[256] = "";
    time_t now = time(NULL);
    strftime(date, sizeof date, "%Y-%m-%dT%H:%M:%SZ", gmtime(&now));
    for (int fi = 0; families[fi]; fi++)
        snprintf(fams + strlen(fams), sizeof fams - strlen(fams), "%s%s", fi ? "," : "", families[fi]->name);
    json_t *run = json_pack("[{s:s,s:I,s:s,s:s,s:f,s:f,s:i,s:b}]", "date", date, "pid", (json_int_t)getpid(),
                            "families", fams, "requested_strategy", opt->exhaustive ? "exhaustive" : "sampled+local",
                            "budget_seconds", budget, "wall_seconds", clf__now() - t0, "evaluations", total_evals,
                            "interrupted", interrupted);
    if (report->count > 0 && clf__tunedb_store(ctx, "runs", run) != CLF_SUCCESS && !opt->quiet)
        fprintf(stderr, "clforge: could not log the run: %s\n", clf_last_error());
    else if (report->count == 0)
        json_decref(run);
    if (interrupted)
        return clf__fail(CLF_ERR_INTERRUPTED, "tuning interrupted; the best configurations found were stored");
    if (store_err != CLF_SUCCESS)
        return clf__fail(store_err, "tuning finished, but the results could not be stored in the tuning database "
                         "(is the cache directory writable? see CLFORGE_CACHE_DIR)");
    return CLF_SUCCESS;
}

CLF_API clf_status clf_tune(clf_context *ctx, const clf_tune_options *opt, clf_tune_report *report)
{
    if (!ctx || !report)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_tune: ctx and report are required");
    clf_tune_options o;
    memset(&o, 0, sizeof o);
    if (opt)
        o = *opt;
    const clf__family *list[32];
    int n = 0;
    if (!o.families || !*o.families) {
        for (int i = 0; clf__families[i] && n < 31; i++)
            list[n++] = clf__families[i];
    } else {
        char buf[256];
        if (strlen(o.families) >= sizeof buf)
            return clf__fail(CLF_ERR_INVALID_ARG, "clf_tune: family list too long");
        strcpy(buf, o.families);
        for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
            const clf__family *f = clf__family_find(tok);
            if (!f)
                return clf__fail(CLF_ERR_INVALID_ARG, "clf_tune: unknown family \"%s\"", tok);
            int dup = 0;
            for (int i = 0; i < n; i++)
                dup |= list[i] == f;
            if (!dup && n < 31)
                list[n++] = f;
        }
    }
    list[n] = NULL;
    if (n == 0)
        return clf__fail(CLF_ERR_INVALID_ARG, "clf_tune: no family to tune");
    return clf__tune_families(ctx, list, NULL, 0, NULL, &o, report);
}
