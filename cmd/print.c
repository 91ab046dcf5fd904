/* print.c: errors, contact sheets, orphans and the summary lines a run
 * or merge prints, and the exit status its errors give. */
#include <stdio.h>
#include <string.h>

#include "cli.h"

void
print_error(const gal_error *err)
{
    char line[2048];

    fprintf(stderr, "%s\n", gal_error_format(err, line, sizeof(line)));
}

int
print_errors(const gal_errors *errs)
{
    gboolean usage_or_preset = FALSE;

    for (int i = 0; i < errs->count; i++) {
        print_error(&errs->items[i]);
        if (errs->items[i].code == GAL_ERR_USAGE || errs->items[i].code == GAL_ERR_PRESET)
            usage_or_preset = TRUE;
    }
    if (errs->dropped)
        fprintf(stderr, "gallop: ... and %d more errors\n", errs->dropped);
    return usage_or_preset || errs->count == 0 ? EXIT_USAGE : EXIT_SOME_FAILED;
}

const char *
pages_noun(const gal_run_summary *s, int n)
{
    if (s->pages_are_html)
        return n == 1 ? "gallery page" : "gallery pages";
    return n == 1 ? "contact sheet" : "contact sheets";
}

/* Contact sheets and gallery pages made: one line each, and failures like
 * a photo's (those up to date are only counted). */
int
print_sheets(const gal_run_summary *s, gboolean quiet)
{
    int failed = 0;

    for (int i = 0; i < s->n_sheets; i++) {
        const gal_photo_result *sheet = &s->sheets[i];

        /* Planned: a dry run's, which says "build ... pages" once. */
        if (sheet->status == GAL_PHOTO_UP_TO_DATE || sheet->status == GAL_PHOTO_PLANNED)
            continue;
        if (sheet->status == GAL_PHOTO_DONE) {
            /* A gallery's pages are HTML: no pixel size. */
            if (!quiet && sheet->width == 0)
                printf("page   %s\n", sheet->output);
            else if (!quiet)
                printf("sheet  %s (%dx%d)\n", sheet->output, sheet->width, sheet->height);
        }
        else {
            print_error(gal_photo_notes_of(sheet)->error);
            failed++;
        }
    }
    return failed;
}

void
print_orphans(const gal_run_summary *s, gboolean dry_run, gboolean prune)
{
    int kept = 0;

    for (int i = 0; i < s->n_orphans; i++) {
        const gal_orphan *o = &s->orphans[i];
        /* A page's "photo" is the whole run: "(contact sheet)", "(gallery page)". */
        g_autofree char *why = o->input[0] == '('
            ? g_strdup_printf("a %.*s the run no longer makes", (int) strlen(o->input) - 2,
                o->input + 1)
            : o->renamed
            ? g_strdup_printf("its photo %s now makes another file", o->input)
            : o->not_made ? g_strdup_printf("its photo %s makes no file of its own now "
                                            "(output.photos is false)", o->input)
                          : g_strdup_printf("its photo %s is gone", o->input);

        if (o->removed)
            printf("removed %s (%s)\n", o->output, why);
        else if (dry_run && prune)
            printf("remove %s (%s)\n", o->output, why);
        else if (o->error.code)
            print_error(&o->error);
        else if (dry_run)
            printf("orphan %s (%s; --prune removes it)\n", o->output, why);
        else
            kept++;
    }
    if (kept)
        fprintf(stderr, "gallop: %d output%s no photo makes any more (see --dry-run; --prune "
            "removes them)\n", kept, kept == 1 ? "" : "s");
}

/* "1 photo", "2 photos" */
const char *
plural(int n, const char *one, const char *many)
{
    return n == 1 ? one : many;
}

/* The photos the run was given: a shard lists its own, and counts the
 * others. */
static int
photos_seen(const gal_run_summary *s)
{
    return s->total + s->elsewhere;
}

/* " (2 video, 1 hidden)": the skipped files by kind, when any. */
static void
print_skipped_kinds(const gal_run_summary *s)
{
    static const char *const kinds[] = { "video", "raw-unsupported", "unknown", "hidden", "pair",
        "link", "special" };
    int counts[G_N_ELEMENTS(kinds)] = { 0 };
    gboolean first = TRUE;

    /* Counted: a million results are not read again to find none. */
    for (int i = 0; s->ignored > 0 && i < s->total; i++) {
        const char *kind = gal_photo_notes_of(&s->photos[i])->skipped;

        for (gsize k = 0; kind && k < G_N_ELEMENTS(kinds); k++)
            counts[k] += strcmp(kind, kinds[k]) == 0;
    }
    for (gsize k = 0; k < G_N_ELEMENTS(kinds); k++)
        if (counts[k]) {
            fprintf(stderr, "%s%d %s", first ? " (" : ", ", counts[k], kinds[k]);
            first = FALSE;
        }
    if (!first)
        fputc(')', stderr);
}

/* output.photos false: contact sheets are all the run writes, so they are
 * what the line counts as written; photos are read (for their tiles), or
 * up to date when the sheets are. */
static void
print_sheets_only_summary(const gal_run_summary *s, gboolean dry_run, gboolean check)
{
    int seen = photos_seen(s);
    const char *photos = plural(seen, "photo", "photos");
    int written = 0;

    if (check || dry_run) {
        fprintf(stderr, "gallop: %s: %d %s, no file per photo: %s %s", s->preset,
            seen, photos, pages_noun(s, 2), s->sheets_stale ? (check ? "stale" : "would be made")
                                              : "up to date");
        if (dry_run && !check && s->sheets_stale)
            fprintf(stderr, " from %d %s", s->planned, plural(s->planned, "photo", "photos"));
        if (check)
            fprintf(stderr, ", %d orphaned %s\n", s->n_orphans,
                plural(s->n_orphans, "output", "outputs"));
        else {
            fprintf(stderr, ", %d skipped", s->ignored);
            print_skipped_kinds(s);
            fputc('\n', stderr);
        }
        return;
    }
    for (int i = 0; i < s->n_sheets; i++)
        written += s->sheets[i].status == GAL_PHOTO_DONE;
    fprintf(stderr, "gallop: %s: %d %s, no file per photo: %d %s written; %d read, "
        "%d failed, %d skipped", s->preset, seen, photos, written, pages_noun(s, written),
        s->done, s->failed, s->ignored);
    print_skipped_kinds(s);
    fprintf(stderr, ", %d up to date; in %.2f s\n", s->up_to_date, s->seconds);
    if (s->interrupted)
        fprintf(stderr, "gallop: %s: interrupted: %d %s not read; no %s is "
            "recorded, the next run makes them again\n", s->preset, s->cancelled,
            plural(s->cancelled, "photo", "photos"), pages_noun(s, 1));
}

/* Photos written this run whose caption a band cut short. */
static int
captions_cut(const gal_run_summary *s)
{
    int n = 0;

    for (int i = 0; i < s->total; i++)
        n += s->photos[i].status == GAL_PHOTO_DONE && gal_photo_notes_of(&s->photos[i])->caption_cut;
    return n;
}

void
print_summary(const gal_run_summary *s, gboolean dry_run, gboolean check)
{
    int seen = photos_seen(s);
    const char *photos = plural(seen, "photo", "photos");
    int cut;

    if (s->sheets_only) {
        print_sheets_only_summary(s, dry_run, check);
        return;
    }
    if (check) {
        fprintf(stderr, "gallop: %s: %d %s: %d up to date, %d stale, %d refused, "
            "%d orphaned %s%s%s%s\n", s->preset, seen, photos, s->up_to_date, s->planned,
            s->failed, s->n_orphans, plural(s->n_orphans, "output", "outputs"),
            s->sheets_stale ? ", " : "", s->sheets_stale ? pages_noun(s, 2) : "",
            s->sheets_stale ? " stale" : "");
        return;
    }
    if (dry_run) {
        fprintf(stderr, "gallop: %s: %d %s, %d would be built, %d up to date, %d refused, "
            "%d skipped", s->preset, seen, photos, s->planned, s->up_to_date, s->failed,
            s->ignored);
        print_skipped_kinds(s);
        if (s->shards)
            fprintf(stderr, ", %d left to other shards", s->elsewhere);
        fputc('\n', stderr);
        return;
    }
    fprintf(stderr, "gallop: %s: %d %s: %d written, %d failed, %d skipped",
        s->preset, seen, photos, s->done, s->failed, s->ignored);
    print_skipped_kinds(s);
    fprintf(stderr, ", %d up to date", s->up_to_date);
    if (s->shards)
        fprintf(stderr, ", %d left to other shards", s->elsewhere);
    if ((cut = captions_cut(s)))
        fprintf(stderr, "; %d %s cut at caption-burn.max-lines", cut,
            plural(cut, "caption", "captions"));
    {
        /* [0] made, [1] up to date; a site's pages apart from its other
         * files (sitemap, feed, zips, originals). */
        int pages[2] = { 0, 0 }, files[2] = { 0, 0 };

        for (int i = 0; i < s->n_sheets; i++) {
            const gal_photo_result *sheet = &s->sheets[i];
            int current = sheet->status == GAL_PHOTO_UP_TO_DATE;

            if (s->pages_are_html && !g_str_has_suffix(sheet->output, ".html"))
                files[current]++;
            else
                pages[current]++;
        }
        for (int current = 0; current < 2; current++) {
            if (!pages[current] && !files[current])
                continue;
            fputs("; ", stderr);
            if (pages[current])
                fprintf(stderr, "%d %s%s", pages[current], pages_noun(s, pages[current]),
                    files[current] ? ", " : "");
            if (files[current])
                fprintf(stderr, "%d %s", files[current],
                    plural(files[current], "site file", "site files"));
            if (current)
                fputs(" up to date", stderr);
        }
    }
    fprintf(stderr, "; in %.2f s\n", s->seconds);
    if (s->interrupted)
        fprintf(stderr, "gallop: %s: interrupted: %d %s not done; the %d written are "
            "recorded\n", s->preset, s->cancelled, plural(s->cancelled, "photo", "photos"),
            s->done);
}

/* Failures again at the end, every preset's, so they are not lost above. */
void
print_failures(gal_run_summary *const *runs, int n)
{
    gboolean header = FALSE;

    /* Counted: a million results are not read again to find none. */
    for (int r = 0; r < n; r++)
        for (int i = 0; runs[r]->failed > 0 && i < runs[r]->total; i++)
            if (runs[r]->photos[i].status == GAL_PHOTO_FAILED) {
                char line[2048];

                if (!header)
                    fprintf(stderr, "failed:\n");
                header = TRUE;
                fprintf(stderr, "  %s\n", gal_error_format(gal_photo_notes_of(&runs[r]->photos[i])->error, line,
                    sizeof(line)));
            }
}

/* Errors that kept a run or merge from happening: shown, and the exit
 * status they call for. */
int
errors_status(const gal_errors *errs, gboolean json)
{
    if (!json)
        return print_errors(errs);
    for (int i = 0; i < errs->count; i++) {
        g_autofree char *line = gal_error_event_json(&errs->items[i]);

        fprintf(stderr, "%s\n", line);
    }
    for (int i = 0; i < errs->count; i++)
        if (errs->items[i].code == GAL_ERR_USAGE || errs->items[i].code == GAL_ERR_PRESET)
            return EXIT_USAGE;
    return errs->count ? EXIT_SOME_FAILED : EXIT_USAGE;
}
