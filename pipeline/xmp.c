/* xmp.c: XMP packets edited with libxml2 (xmp.h). The packet comes from a
 * photo nobody on the project wrote: parsed without entities, network or
 * DTD, within GAL_XMP_MAX_BYTES, and an unreadable one is refused whole. */
#include <math.h>
#include <string.h>

#include <libxml/parser.h>
#include <libxml/tree.h>

#include "embedded.h"
#include "xmp.h"

#define NS_CRS "http://ns.adobe.com/camera-raw-settings/1.0/"
#define NS_EXIF "http://ns.adobe.com/exif/1.0/"
#define NS_PHOTOSHOP "http://ns.adobe.com/photoshop/1.0/"
#define NS_IPTC_CORE "http://iptc.org/std/Iptc4xmpCore/1.0/xmlns/"
#define NS_IPTC_EXT "http://iptc.org/std/Iptc4xmpExt/2008-02-29/"
#define NS_MWG_RS "http://www.metadataworkinggroup.com/schemas/regions/"
#define NS_MP "http://ns.microsoft.com/photo/1.2/"
#define NS_RDF "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
#define NS_ST_AREA "http://ns.adobe.com/xmp/sType/Area#"

/* One kind of property: a namespace, and a local name (NULL: all of the
 * namespace; ending in '*': those starting so). */
typedef struct {
    unsigned kind;
    const char *ns;
    const char *local;
} xmp_rule;

static const xmp_rule rules[] = {
    { GAL_XMP_CAMERA_RAW, NS_CRS, NULL },
    { GAL_XMP_LOCATION, NS_EXIF, "GPS*" },
    { GAL_XMP_LOCATION, NS_PHOTOSHOP, "City" },
    { GAL_XMP_LOCATION, NS_PHOTOSHOP, "State" },
    { GAL_XMP_LOCATION, NS_PHOTOSHOP, "Country" },
    { GAL_XMP_LOCATION, NS_IPTC_CORE, "Location" },
    { GAL_XMP_LOCATION, NS_IPTC_CORE, "CountryCode" },
    { GAL_XMP_LOCATION, NS_IPTC_EXT, "LocationCreated" },
    { GAL_XMP_LOCATION, NS_IPTC_EXT, "LocationShown" },
    { GAL_XMP_PERSON, NS_IPTC_EXT, "PersonInImage" },
    { GAL_XMP_PERSON, NS_IPTC_EXT, "PersonInImageWDetails" },
    { GAL_XMP_PERSON, NS_IPTC_EXT, "ImageRegion" },
    { GAL_XMP_PERSON, NS_MWG_RS, "Regions" },
    { GAL_XMP_PERSON, NS_MP, "RegionInfo" },
};

static gboolean
matches(unsigned drop, const xmlNs *ns, const xmlChar *name)
{
    const char *local = (const char *) name;

    if (!ns || !ns->href)
        return FALSE;
    for (gsize i = 0; i < G_N_ELEMENTS(rules); i++) {
        const xmp_rule *r = &rules[i];
        gsize n;

        if (!(drop & r->kind) || strcmp((const char *) ns->href, r->ns) != 0)
            continue;
        if (!r->local)
            return TRUE;
        n = strlen(r->local);
        if (r->local[n - 1] == '*' ? strncmp(local, r->local, n - 1) == 0
                                   : strcmp(local, r->local) == 0)
            return TRUE;
    }
    return FALSE;
}

/* Remove what `drop` names below `node`: elements with all they hold, and
 * attributes (XMP's short form of a simple property). */
static void
prune(xmlNode *node, unsigned drop)
{
    xmlNode *next;

    for (xmlNode *n = node->children; n; n = next) {
        next = n->next;
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (matches(drop, n->ns, n->name)) {
            xmlUnlinkNode(n);
            xmlFreeNode(n);
            continue;
        }
        for (xmlAttr *a = n->properties, *an; a; a = an) {
            an = a->next;
            if (matches(drop, a->ns, a->name))
                xmlRemoveProp(a);
        }
        prune(n, drop);
    }
}

static xmlDoc *
parse(const char *xmp, gsize len)
{
    xmlDoc *doc;

    if (!xmp || len == 0 || len > GAL_XMP_MAX_BYTES)
        return NULL;
    /* No entity substitution, DTD loading or network; errors stay quiet
     * (they would go to stderr from a library that never prints). */
    doc = xmlReadMemory(xmp, (int) len, NULL, NULL,
        XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_NOBLANKS);
    /* XMP has no DTD; one here could only declare entities to expand. */
    if (doc && (doc->intSubset || doc->extSubset)) {
        xmlFreeDoc(doc);
        return NULL;
    }
    return doc;
}

void
gal__xmp_init(void)
{
    xmlInitParser();
}

char *
gal__xmp_without(const char *xmp, gsize len, unsigned drop, gsize *out_len)
{
    xmlDoc *doc = parse(xmp, len);
    xmlBuffer *buf;
    GString *out;

    if (!doc)
        return NULL;
    prune((xmlNode *) doc, drop);
    /* The document's nodes without an XML declaration, which an XMP packet
     * does not start with: the <?xpacket?> instructions and the root. */
    buf = xmlBufferCreate();
    for (xmlNode *n = doc->children; n; n = n->next) {
        xmlNodeDump(buf, doc, n, 0, 0);
        xmlBufferCCat(buf, "\n");
    }
    out = g_string_new_len((const char *) xmlBufferContent(buf), xmlBufferLength(buf));
    xmlBufferFree(buf);
    xmlFreeDoc(doc);
    /* The caption gallop reads (embedded.c, by the usual prefixes) must
     * read the same from the edited packet: one whose prefixes are bound
     * to other namespaces than the usual (libFuzzer made one) is dropped
     * whole rather than published with another caption. */
    {
        g_autofree char *before = gal__xmp_description(xmp, len);
        g_autofree char *after = gal__xmp_description(out->str, out->len);

        if (g_strcmp0(before, after) != 0) {
            g_string_free(out, TRUE);
            return NULL;
        }
    }
    *out_len = out->len;
    return g_string_free(out, FALSE);
}

static const char *const contact_fields[] = { "CiEmailWork", "CiUrlWork", "CiTelWork",
    "CiAdrExtadr", "CiAdrCity", "CiAdrRegion", "CiAdrPcode", "CiAdrCtry" };

static gboolean
is(const xmlNode *n, const char *ns, const char *local)
{
    return n->ns && n->ns->href && strcmp((const char *) n->ns->href, ns) == 0 &&
        strcmp((const char *) n->name, local) == 0;
}

/* A field of the contact struct `info`: an attribute of it or of an
 * rdf:Description in it, or an element below it. New string or NULL. */
static char *
contact_field(const xmlNode *info, const char *field)
{
    for (const xmlNode *n = info; n; n = n == info ? info->children : n->next) {
        xmlChar *value;

        if (n->type != XML_ELEMENT_NODE || (n != info && !is(n, NS_RDF, "Description")))
            continue;
        if ((value = xmlGetNsProp(n, (const xmlChar *) field, (const xmlChar *) NS_IPTC_CORE))) {
            char *text = g_strdup((const char *) value);

            xmlFree(value);
            return text;
        }
    }
    for (const xmlNode *n = info->children; n; n = n->next) {
        char *found;

        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (is(n, NS_IPTC_CORE, field)) {
            xmlChar *content = xmlNodeGetContent(n);
            char *text = g_strdup(content ? (const char *) content : "");

            xmlFree(content);
            return text;
        }
        if ((found = contact_field(n, field)))
            return found;
    }
    return NULL;
}

static const xmlNode *
find(const xmlNode *node, const char *ns, const char *local)
{
    for (const xmlNode *n = node->children; n; n = n->next) {
        const xmlNode *found;

        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (is(n, ns, local))
            return n;
        if ((found = find(n, ns, local)))
            return found;
    }
    return NULL;
}

void
gal__xmp_contact(const char *xmp, gsize len, GPtrArray *fields)
{
    xmlDoc *doc = parse(xmp, len);
    const xmlNode *info;

    if (!doc)
        return;
    if ((info = find((xmlNode *) doc, NS_IPTC_CORE, "CreatorContactInfo")))
        for (gsize i = 0; i < G_N_ELEMENTS(contact_fields); i++) {
            char *value = contact_field(info, contact_fields[i]);

            if (value && *g_strstrip(value)) {
                g_ptr_array_add(fields, g_strdup(contact_fields[i]));
                g_ptr_array_add(fields, value);
            }
            else
                g_free(value);
        }
    xmlFreeDoc(doc);
}

/* ---- what a gallery uses per photo (gal__xmp_overrides) ------------------------- */

/* Text content, surrounding white space removed: a new string, NULL when
 * nothing is left. */
static char *
node_text(const xmlNode *n)
{
    xmlChar *content = xmlNodeGetContent(n);
    char *text = content ? g_strstrip(g_strdup((const char *) content)) : NULL;

    xmlFree(content);
    if (text && !*text)
        g_clear_pointer(&text, g_free);
    return text;
}

/* A field of the struct `node`, written either way XMP allows: an
 * attribute of it or of an rdf:Description in it, else an element in
 * either. New string or NULL. */
static char *
struct_field(const xmlNode *node, const char *ns, const char *local)
{
    for (const xmlNode *n = node; n; n = n == node ? node->children : n->next) {
        xmlChar *value;

        if (n->type != XML_ELEMENT_NODE || (n != node && !is(n, NS_RDF, "Description")))
            continue;
        if ((value = xmlGetNsProp(n, (const xmlChar *) local, (const xmlChar *) ns))) {
            char *text = g_strstrip(g_strdup((const char *) value));

            xmlFree(value);
            return text;
        }
    }
    for (const xmlNode *n = node->children; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (is(n, ns, local))
            return node_text(n);
        if (is(n, NS_RDF, "Description")) {
            char *found = struct_field(n, ns, local);

            if (found)
                return found;
        }
    }
    return NULL;
}

/* A language alternative's x-default entry, else its first; a plain text
 * value as it is. New string or NULL. */
static char *
lang_alt(const xmlNode *prop)
{
    const xmlNode *alt = find(prop, NS_RDF, "Alt");
    const xmlNode *first = NULL;

    if (!alt)
        return node_text(prop);
    for (const xmlNode *li = alt->children; li; li = li->next) {
        xmlChar *lang;
        gboolean is_default;

        if (li->type != XML_ELEMENT_NODE || !is(li, NS_RDF, "li"))
            continue;
        lang = xmlGetNsProp(li, (const xmlChar *) "lang", XML_XML_NAMESPACE);
        is_default = lang && g_ascii_strcasecmp((const char *) lang, "x-default") == 0;
        xmlFree(lang);
        if (is_default)
            return node_text(li);
        if (!first)
            first = li;
    }
    return first ? node_text(first) : NULL;
}

static gboolean
fraction(const char *text, double *out)
{
    char *end;

    if (!text)
        return FALSE;
    *out = g_ascii_strtod(text, &end);
    return end != text && !*end && isfinite(*out) && *out >= 0 && *out <= 1;
}

/* A region's area in normalized units (its centre, width and height);
 * FALSE for any other unit or a value outside 0..1. */
static gboolean
region_area(const xmlNode *region, double *x, double *y, double *w, double *h)
{
    const xmlNode *area = find(region, NS_MWG_RS, "Area");
    g_autofree char *unit = area ? struct_field(area, NS_ST_AREA, "unit") : NULL;
    g_autofree char *tx = area ? struct_field(area, NS_ST_AREA, "x") : NULL;
    g_autofree char *ty = area ? struct_field(area, NS_ST_AREA, "y") : NULL;
    g_autofree char *tw = area ? struct_field(area, NS_ST_AREA, "w") : NULL;
    g_autofree char *th = area ? struct_field(area, NS_ST_AREA, "h") : NULL;

    *w = *h = 0;
    return unit && strcmp(unit, "normalized") == 0 && fraction(tx, x) && fraction(ty, y) &&
        (!tw || fraction(tw, w)) && (!th || fraction(th, h));
}

static void
focus_from_regions(const xmlNode *root, gal_xmp_overrides *out)
{
    const xmlNode *regions = find(root, NS_MWG_RS, "Regions");
    const xmlNode *list = regions ? find(regions, NS_MWG_RS, "RegionList") : NULL;
    double left = 1, top = 1, right = 0, bottom = 0;
    gboolean faces = FALSE;

    for (const xmlNode *bag = list ? list->children : NULL; bag; bag = bag->next)
        for (const xmlNode *li = bag->type == XML_ELEMENT_NODE ? bag->children : NULL; li;
             li = li->next) {
            g_autofree char *type = NULL;
            double x, y, w, h;

            if (li->type != XML_ELEMENT_NODE || !is(li, NS_RDF, "li") ||
                !region_area(li, &x, &y, &w, &h))
                continue;
            type = struct_field(li, NS_MWG_RS, "Type");
            if (g_strcmp0(type, "Focus") == 0) {
                out->has_focus = TRUE;
                out->focus_x = x;
                out->focus_y = y;
                return;
            }
            if (g_strcmp0(type, "Face") == 0) {
                faces = TRUE;
                left = MIN(left, MAX(0, x - w / 2));
                right = MAX(right, MIN(1, x + w / 2));
                top = MIN(top, MAX(0, y - h / 2));
                bottom = MAX(bottom, MIN(1, y + h / 2));
            }
        }
    if (faces) {
        out->has_focus = TRUE;
        out->focus_x = (left + right) / 2;
        out->focus_y = (top + bottom) / 2;
    }
}

void
gal__xmp_overrides(const char *xmp, gsize len, gal_xmp_overrides *out)
{
    xmlDoc *doc;
    const xmlNode *prop;

    *out = (gal_xmp_overrides) { 0 };
    if (!(doc = parse(xmp, len)))
        return;
    if ((prop = find((xmlNode *) doc, NS_IPTC_CORE, "AltTextAccessibility")))
        out->alt = lang_alt(prop);
    if ((prop = find((xmlNode *) doc, NS_IPTC_CORE, "ExtDescrAccessibility")))
        out->description = lang_alt(prop);
    focus_from_regions((xmlNode *) doc, out);
    xmlFreeDoc(doc);
}

void
gal__xmp_overrides_clear(gal_xmp_overrides *out)
{
    g_clear_pointer(&out->alt, g_free);
    g_clear_pointer(&out->description, g_free);
}
