/* about.h: what a site shows of a photo ("key=value" each: a record's
 * `about`, gal_photo_result.about), shared by a record and the results that
 * report it (reference-counted). Made from fields, it holds them; read from
 * a manifest file, it is where its line is in that file (the file stays
 * open), read again when asked: a million photos' about lines were half a
 * kilobyte each in memory in a merge or a rerun that never reads them. */
#ifndef GAL_ABOUT_H
#define GAL_ABOUT_H

#include <stdbool.h>

#include <glib.h>

typedef struct gal_about gal_about;
typedef struct gal_about_file gal_about_file;

gal_about *gal__about_new(const char *const *fields, gsize n);
gal_about *gal__about_ref(gal_about *about);   /* NULL stays NULL */
void gal__about_unref(gal_about *about);       /* NULL: nothing */
/* Its fields, NULL-terminated, when they are in memory; NULL otherwise. */
const char *const *gal__about_in_memory(const gal_about *about);
/* Its fields: a new NULL-terminated array (g_strfreev); NULL for NULL, or
 * when its file no longer holds its line. */
char **gal__about_fields(const gal_about *about);
/* When it is a plain line of a file whose fields were all kept, as written
 * there: the line read into `line`, and a pointer into it to the fields
 * after the output's ("\tkey=value..."); NULL otherwise (written anew
 * from gal__about_fields). */
const char *gal__about_verbatim(const gal_about *about, GString *line);

/* For the manifest's reader (manifest.c). */
/* The file being read (its descriptor taken; at most 256 of them at once,
 * NULL past that: its about lines are then kept in memory). */
gal_about_file *gal__about_file_new(int fd);
void gal__about_file_unref(gal_about_file *f);
/* How much of it was read: a last line without a newline ends there. Its
 * reading is over. */
void gal__about_file_read_to(gal_about_file *f, gint64 size);
/* Room for a record read from it, zeroed, while it is read: freed when
 * every such record is gone (each says so) and the reading is over. */
void *gal__about_file_record_memory(gal_about_file *f, gsize size);
void gal__about_file_record_gone(gal_about_file *f);
/* The about line at `line_at` of `file`, left there; `verbatim`: plain,
 * every field kept, written back as it is. */
gal_about *gal__about_on_file(gal_about_file *file, gint64 line_at, bool verbatim);
/* Another reference to the file. */
gal_about_file *gal__about_file_ref(gal_about_file *f);
/* The line at `at` (without its newline) into `line`: FALSE when the file
 * no longer holds a whole line there (a record left in its file reads its
 * tail so, manifest.c). */
gboolean gal__about_file_line(gal_about_file *f, gint64 at, GString *line);
/* Is this an about line's field the manifest keeps? */
gboolean gal__about_field_kept(const char *field);

#endif /* GAL_ABOUT_H */
