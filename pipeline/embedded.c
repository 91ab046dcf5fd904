/* embedded.c: captions embedded in a photo's metadata (embedded.h). The
 * blobs come from files nobody on the project wrote: every length is
 * checked against what is there before it is read, and a damaged block
 * gives no caption rather than a guess. */
#include <string.h>

#include "embedded.h"

/* XMP: the x-default entry of dc:description (else its first), as an
 * element or as an attribute of rdf:Description. Namespaces are resolved
 * by URI, so any prefix works. */
#define NS_DC "http://purl.org/dc/elements/1.1/"
#define NS_RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"

typedef struct {
    GPtrArray *scopes;  /* per open element: GHashTable prefix -> uri, or NULL */
    int in_description; /* depth inside dc:description, 0 = outside */
    gboolean in_li;
    gboolean li_default;
    GString *li_text;
    char *first;
    char *x_default;
} xmp_state;

static const char *
xmp_ns(const xmp_state *x, const char *prefix)
{
    for (guint i = x->scopes->len; i-- > 0;) {
        GHashTable *scope = x->scopes->pdata[i];
        const char *uri = scope ? g_hash_table_lookup(scope, prefix) : NULL;

        if (uri)
            return uri;
    }
    return NULL;
}

/* Is `qname` (prefix:local) the name `local` in namespace `ns`? */
static gboolean
xmp_is(const xmp_state *x, const char *qname, const char *ns, const char *local)
{
    const char *colon = strchr(qname, ':');
    g_autofree char *prefix = colon ? g_strndup(qname, colon - qname) : g_strdup("");
    const char *uri;

    if (strcmp(colon ? colon + 1 : qname, local) != 0)
        return FALSE;
    uri = xmp_ns(x, prefix);
    return uri && strcmp(uri, ns) == 0;
}

static void
xmp_start(GMarkupParseContext *ctx, const char *name, const char **attr_names,
    const char **attr_values, gpointer user, GError **error)
{
    xmp_state *x = user;
    GHashTable *scope = NULL;

    (void) ctx;
    (void) error;
    for (int i = 0; attr_names[i]; i++)
        if (g_str_has_prefix(attr_names[i], "xmlns")) {
            const char *prefix = attr_names[i][5] == ':' ? attr_names[i] + 6 : "";

            if (!scope)
                scope = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
            g_hash_table_insert(scope, g_strdup(prefix), g_strdup(attr_values[i]));
        }
    g_ptr_array_add(x->scopes, scope);

    if (x->in_description) {
        x->in_description++;
        if (xmp_is(x, name, NS_RDF, "li")) {
            x->in_li = TRUE;
            x->li_default = FALSE;
            g_string_truncate(x->li_text, 0);
            for (int i = 0; attr_names[i]; i++)
                if (strcmp(attr_names[i], "xml:lang") == 0 &&
                    g_ascii_strcasecmp(attr_values[i], "x-default") == 0)
                    x->li_default = TRUE;
        }
        return;
    }
    if (xmp_is(x, name, NS_DC, "description")) {
        x->in_description = 1;
        g_string_truncate(x->li_text, 0);
        return;
    }
    for (int i = 0; attr_names[i]; i++)
        if (xmp_is(x, attr_names[i], NS_DC, "description") && !x->x_default)
            x->x_default = g_strdup(attr_values[i]);
}

static void
xmp_end(GMarkupParseContext *ctx, const char *name, gpointer user, GError **error)
{
    xmp_state *x = user;

    (void) ctx;
    (void) error;
    if (x->in_li && xmp_is(x, name, NS_RDF, "li")) {
        x->in_li = FALSE;
        if (x->li_default && !x->x_default)
            x->x_default = g_strdup(x->li_text->str);
        if (!x->first)
            x->first = g_strdup(x->li_text->str);
    }
    if (x->in_description && --x->in_description == 0 && !x->first && x->li_text->len)
        x->first = g_strdup(x->li_text->str); /* plain text, no rdf:Alt */
    if (x->scopes->len) {
        GHashTable *scope = g_ptr_array_steal_index(x->scopes, x->scopes->len - 1);

        if (scope)
            g_hash_table_unref(scope);
    }
}

static void
xmp_text(GMarkupParseContext *ctx, const char *text, gsize len, gpointer user, GError **error)
{
    xmp_state *x = user;

    (void) ctx;
    (void) error;
    if (x->in_li || x->in_description == 1)
        g_string_append_len(x->li_text, text, (gssize) len);
}

static void
scope_free(gpointer p)
{
    if (p)
        g_hash_table_unref(p);
}

char *
gal__xmp_description(const char *xmp, gsize len)
{
    static const GMarkupParser parser = { xmp_start, xmp_end, xmp_text, NULL, NULL };
    xmp_state x = { g_ptr_array_new_with_free_func(scope_free), 0, FALSE, FALSE,
        g_string_new(NULL), NULL, NULL };
    g_autoptr(GMarkupParseContext) ctx = NULL;
    g_autofree char *valid = NULL;
    char *result;

    /* The xml namespace is always bound. */
    {
        GHashTable *xml = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);

        g_hash_table_insert(xml, g_strdup("xml"),
            g_strdup("http://www.w3.org/XML/1998/namespace"));
        g_ptr_array_add(x.scopes, xml);
    }
    /* Packets are padded with white space (and sometimes NULs) to leave room
     * for in-place edits. */
    while (len > 0 && (xmp[len - 1] == '\0' || g_ascii_isspace(xmp[len - 1])))
        len--;
    valid = g_utf8_make_valid(xmp, (gssize) len);
    /* A caption in a CDATA section is text like any other. */
    ctx = g_markup_parse_context_new(&parser, G_MARKUP_TREAT_CDATA_AS_TEXT, &x, NULL);
    /* A damaged packet gives what was read before the damage, if anything. */
    if (g_markup_parse_context_parse(ctx, valid, -1, NULL))
        g_markup_parse_context_end_parse(ctx, NULL);
    result = g_strdup(x.x_default ? x.x_default : x.first);
    g_ptr_array_unref(x.scopes);
    g_string_free(x.li_text, TRUE);
    g_free(x.first);
    g_free(x.x_default);
    return result;
}

/* IPTC-IIM: Caption-Abstract is dataset 2:120; 1:90 says whether the
 * text is UTF-8 (ESC % G), else it is taken as Windows-1252 (Latin-1 and
 * its common superset). libvips keeps JPEG's whole APP13 block: Photoshop
 * image resources ("8BIM") with IPTC in resource 0x0404. */
static const guchar *
iim_from_photoshop(const guchar *p, gsize len, gsize *iim_len)
{
    static const char sig[] = "Photoshop 3.0";
    gsize i = 0;

    if (len >= sizeof(sig) && memcmp(p, sig, sizeof(sig)) == 0)
        i = sizeof(sig);
    while (i + 12 <= len && memcmp(p + i, "8BIM", 4) == 0) {
        guint id = (guint) p[i + 4] << 8 | p[i + 5];
        gsize name = p[i + 6];
        gsize at = i + 6 + ((name + 2) & ~(gsize) 1); /* Pascal string, padded to even */
        guint32 size;

        if (at + 4 > len)
            return NULL;
        size = (guint32) p[at] << 24 | (guint32) p[at + 1] << 16 | (guint32) p[at + 2] << 8 |
            p[at + 3];
        at += 4;
        if (size > len - at)
            return NULL;
        if (id == 0x0404) {
            *iim_len = size;
            return p + at;
        }
        i = at + size + (size & 1);
    }
    return NULL;
}

char *
gal__iptc_caption(const void *data, gsize len)
{
    const guchar *p = data;
    const guchar *caption = NULL;
    gsize caption_len = 0, i = 0;
    gboolean utf8 = FALSE;

    if (len > 0 && p[0] != 0x1c && !(p = iim_from_photoshop(data, len, &len)))
        return NULL;
    while (i + 5 <= len && p[i] == 0x1c) {
        guint record = p[i + 1], dataset = p[i + 2];
        gsize size = (gsize) p[i + 3] << 8 | p[i + 4];

        i += 5;
        if (size & 0x8000) {
            /* Extended: the low bits count the bytes of the real length. */
            gsize n = size & 0x7fff;

            if (n > 4 || i + n > len)
                return NULL;
            size = 0;
            for (gsize k = 0; k < n; k++)
                size = size << 8 | p[i + k];
            i += n;
        }
        if (size > len - i)
            return NULL;
        if (record == 1 && dataset == 90)
            utf8 = size >= 3 && memcmp(p + i, "\x1b%G", 3) == 0;
        else if (record == 2 && dataset == 120 && !caption) {
            caption = p + i;
            caption_len = size;
        }
        i += size;
    }
    if (!caption)
        return NULL;
    if (utf8 || g_utf8_validate((const char *) caption, (gssize) caption_len, NULL))
        return g_utf8_make_valid((const char *) caption, (gssize) caption_len);
    return g_convert((const char *) caption, (gssize) caption_len, "UTF-8", "WINDOWS-1252", NULL,
        NULL, NULL);
}


static gboolean
is_location_dataset(guint record, guint dataset)
{
    static const guint location[] = { 26, 27, 90, 92, 95, 100, 101 };

    for (gsize i = 0; record == 2 && i < G_N_ELEMENTS(location); i++)
        if (dataset == location[i])
            return TRUE;
    return FALSE;
}

/* A bare IIM block without its location datasets, appended to `out`;
 * FALSE when a dataset runs past the end or uses an extended length
 * (which no caption or place needs). */
static gboolean
iim_without_location(const guchar *p, gsize len, GByteArray *out)
{
    gsize i = 0;

    while (i < len) {
        gsize size;

        if (p[i] != 0x1c || i + 5 > len || (p[i + 3] & 0x80))
            return FALSE;
        size = (gsize) p[i + 3] << 8 | p[i + 4];
        if (size > len - i - 5)
            return FALSE;
        if (!is_location_dataset(p[i + 1], p[i + 2]))
            g_byte_array_append(out, p + i, (guint) (5 + size));
        i += 5 + size;
    }
    return TRUE;
}

void *
gal__iptc_without_location(const void *data, gsize len, gsize *out_len)
{
    static const char sig[] = "Photoshop 3.0";
    const guchar *p = data;
    g_autoptr(GByteArray) out = g_byte_array_new();
    gsize i = 0;

    if (!p || len == 0 || len > G_MAXUINT32)
        return NULL;
    if (p[0] == 0x1c) {
        if (!iim_without_location(p, len, out))
            return NULL;
        *out_len = out->len;
        return g_byte_array_free(g_steal_pointer(&out), FALSE);
    }
    /* Photoshop resources: each copied as it is but 0x0404 (IPTC),
     * rebuilt with its new size and padded to even, as the others. */
    if (len >= sizeof(sig) && memcmp(p, sig, sizeof(sig)) == 0) {
        g_byte_array_append(out, p, sizeof(sig));
        i = sizeof(sig);
    }
    while (i < len) {
        gsize name, at;
        guint32 size;

        if (i + 12 > len || memcmp(p + i, "8BIM", 4) != 0)
            return NULL;
        name = p[i + 6];
        at = i + 6 + ((name + 2) & ~(gsize) 1);
        if (at + 4 > len)
            return NULL;
        size = (guint32) p[at] << 24 | (guint32) p[at + 1] << 16 | (guint32) p[at + 2] << 8 |
            p[at + 3];
        if (size > len - at - 4)
            return NULL;
        if (((guint) p[i + 4] << 8 | p[i + 5]) == 0x0404) {
            g_autoptr(GByteArray) iim = g_byte_array_new();
            guchar be[4];

            if (!iim_without_location(p + at + 4, size, iim))
                return NULL;
            g_byte_array_append(out, p + i, (guint) (at - i));
            be[0] = (guchar) (iim->len >> 24);
            be[1] = (guchar) (iim->len >> 16);
            be[2] = (guchar) (iim->len >> 8);
            be[3] = (guchar) iim->len;
            g_byte_array_append(out, be, 4);
            g_byte_array_append(out, iim->data, iim->len);
            if (iim->len & 1)
                g_byte_array_append(out, (const guchar *) "", 1);
        }
        else
            g_byte_array_append(out, p + i, (guint) MIN(len - i, at + 4 + size + (size & 1) - i));
        i = at + 4 + size + (size & 1);
    }
    *out_len = out->len;
    return g_byte_array_free(g_steal_pointer(&out), FALSE);
}
