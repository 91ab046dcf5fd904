/* orclock.c: one lock around orc's code memory, so that libvips' vector
 * paths are safe with any orc.
 *
 * orc before 0.4.34 hands out and takes back chunks of its executable
 * code memory with the list of chunks only partly locked: a chunk is
 * found under orc's lock but split after it, and freed (merged with its
 * neighbours) with no lock at all. libvips builds an orc program when an
 * operation such as vips_reducev is built and frees it wherever the last
 * reference to the operation goes, so two workers of a run can corrupt
 * the list and crash in liborc (issue 12; tests/stress/orc_churn shows
 * it within seconds).
 *
 * libvips reaches that memory through two calls only,
 * orc_program_compile() and orc_program_free() (the orc functions
 * libvips 8.14 imports; nothing else in the process uses orc). Defined
 * here, in the executable, these two names come before liborc's for every
 * caller: the dynamic linker looks in the executable first. Each takes
 * one process-wide lock and goes on to liborc's own function. Compiling
 * happens once per operation built, so the lock costs nothing measurable.
 * gal__orc_lock_active() tells whether the calls really come here (they
 * would not if this object were linked into a shared library with hidden
 * symbols, or the process linked statically). */
#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#include <orc/orc.h>

#include "orclock.h"

typedef OrcCompileResult (*compile_fn)(OrcProgram *);
typedef void (*free_fn)(OrcProgram *);

static pthread_mutex_t code_memory_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t resolved = PTHREAD_ONCE_INIT;
static compile_fn liborc_compile;
static free_fn liborc_free;

/* POSIX guarantees that dlsym's result converts to a function pointer;
 * ISO C has no such conversion, so copy the bits. */
static void
next_definition(const char *name, void *fn, size_t size)
{
    void *sym = dlsym(RTLD_NEXT, name);

    if (sym && size == sizeof(sym))
        memcpy(fn, &sym, size);
}

static void
resolve_liborc(void)
{
    next_definition("orc_program_compile", &liborc_compile, sizeof(liborc_compile));
    next_definition("orc_program_free", &liborc_free, sizeof(liborc_free));
}

OrcCompileResult
orc_program_compile(OrcProgram *program)
{
    OrcCompileResult result;

    pthread_once(&resolved, resolve_liborc);
    /* Without liborc's function (only if liborc is gone from the process,
     * which libvips' own call rules out) the program is left to the C
     * path, as orc does with a program it cannot compile. */
    if (!liborc_compile)
        return ORC_COMPILE_RESULT_UNKNOWN_COMPILE;
    pthread_mutex_lock(&code_memory_lock);
    result = liborc_compile(program);
    pthread_mutex_unlock(&code_memory_lock);
    return result;
}

void
orc_program_free(OrcProgram *program)
{
    pthread_once(&resolved, resolve_liborc);
    if (!liborc_free)
        return;
    pthread_mutex_lock(&code_memory_lock);
    liborc_free(program);
    pthread_mutex_unlock(&code_memory_lock);
}

/* The function the process's global lookup finds first for `name`:
 * what libvips' calls bind to. */
static gboolean
first_definition_is(const char *name, void *fn, size_t size)
{
    void *sym = dlsym(RTLD_DEFAULT, name);

    return sym && size == sizeof(sym) && memcmp(fn, &sym, size) == 0;
}

gboolean
gal__orc_lock_active(void)
{
    compile_fn ours_compile = orc_program_compile;
    free_fn ours_free = orc_program_free;

    pthread_once(&resolved, resolve_liborc);
    return liborc_compile && liborc_free &&
        first_definition_is("orc_program_compile", &ours_compile, sizeof(ours_compile)) &&
        first_definition_is("orc_program_free", &ours_free, sizeof(ours_free));
}
