/* xmp.c: XMP packets edited with libxml2 (xmp.h). The packet comes from a
 * photo nobody on the project wrote: parsed without entities, network or
 * DTD, within GAL_XMP_MAX_BYTES, and an unreadable one is refused whole. */
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
