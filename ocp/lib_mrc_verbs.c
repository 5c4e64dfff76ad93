/* lib_mrc_verbs.c - the application's memory registrations, as lib_mrc sees them.
 *
 * A peer's write names a region by the rkey the application's verbs library chose. With the soft libibverbs,
 * lib_mrc asks it (mrc_softverbs_mr_lookup). The real libibverbs has no such question: rdma-core cannot tell a
 * region from its rkey. So lib_mrc.so exports ibv_reg_mr, ibv_reg_mr_iova, ibv_reg_mr_iova2 and ibv_dereg_mr
 * itself: each calls the next definition (the verbs library's, found with dlvsym(RTLD_NEXT)) and records what was
 * registered. A program that links lib_mrc.so before libibverbs (as OCP's benchmark makefile does) reaches these
 * first; lm_mr_interposed says whether it does. The progress thread looks registrations up by (context, rkey).
 */
#define _GNU_SOURCE
#include "lib_mrc_int.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>

#define LM_MRS 4096

static struct lm_mr {
    struct ibv_mr *mr;
    struct ibv_context *ctx;
    void *addr;
    uint64_t iova, len;
    uint32_t rkey;
    int access;
} lm_mrs[LM_MRS];
static unsigned lm_nmrs;
static unsigned long lm_mr_gen; /* moves with every deregistration */
static pthread_mutex_t lm_mr_lock = PTHREAD_MUTEX_INITIALIZER;

static struct ibv_mr *(*lm_real_reg)(struct ibv_pd *, void *, size_t, int);
static struct ibv_mr *(*lm_real_reg_iova2)(struct ibv_pd *, void *, size_t, uint64_t, unsigned int);
static int (*lm_real_dereg)(struct ibv_mr *);
static pthread_once_t lm_real_once = PTHREAD_ONCE_INIT;

static void lm_real_init(void) {
    *(void **)&lm_real_reg = dlvsym(RTLD_NEXT, "ibv_reg_mr", "IBVERBS_1.1");
    *(void **)&lm_real_reg_iova2 = dlvsym(RTLD_NEXT, "ibv_reg_mr_iova2", "IBVERBS_1.8");
    *(void **)&lm_real_dereg = dlvsym(RTLD_NEXT, "ibv_dereg_mr", "IBVERBS_1.1");
}

static struct ibv_mr *lm_mr_add(struct ibv_mr *mr, void *addr, uint64_t iova, size_t len, int access) {
    unsigned i;
    if (!mr) return NULL;
    pthread_mutex_lock(&lm_mr_lock);
    for (i = 0; i < lm_nmrs && lm_mrs[i].mr != mr; i++) {
    }
    if (i < LM_MRS) { /* the same mr twice (a verbs library whose ibv_reg_mr calls ibv_reg_mr_iova2): one entry */
        lm_mrs[i].mr = mr;
        lm_mrs[i].ctx = mr->context;
        lm_mrs[i].addr = addr;
        lm_mrs[i].iova = iova;
        lm_mrs[i].len = len;
        lm_mrs[i].rkey = mr->rkey;
        lm_mrs[i].access = access;
        if (i == lm_nmrs) lm_nmrs++;
    } /* else: not recorded; writes naming it are refused (IBV_WC_REM_ACCESS_ERR at the writer) */
    pthread_mutex_unlock(&lm_mr_lock);
    return mr;
}

#undef ibv_reg_mr
#undef ibv_reg_mr_iova
struct ibv_mr *ibv_reg_mr(struct ibv_pd *pd, void *addr, size_t length, int access) {
    pthread_once(&lm_real_once, lm_real_init);
    if (!lm_real_reg) return lm_null(ENOSYS);
    return lm_mr_add(lm_real_reg(pd, addr, length, access), addr, (uint64_t)(uintptr_t)addr, length, access);
}

struct ibv_mr *ibv_reg_mr_iova2(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, unsigned int access) {
    pthread_once(&lm_real_once, lm_real_init);
    if (!lm_real_reg_iova2) return lm_null(ENOSYS);
    return lm_mr_add(lm_real_reg_iova2(pd, addr, length, iova, access), addr, iova, length, (int)access);
}

struct ibv_mr *ibv_reg_mr_iova(struct ibv_pd *pd, void *addr, size_t length, uint64_t iova, int access) {
    return ibv_reg_mr_iova2(pd, addr, length, iova, (unsigned int)access); /* the same registration */
}

int ibv_dereg_mr(struct ibv_mr *mr) {
    unsigned i;
    pthread_once(&lm_real_once, lm_real_init);
    if (!lm_real_dereg) return ENOSYS;
    pthread_mutex_lock(&lm_mr_lock);
    for (i = 0; i < lm_nmrs; i++)
        if (lm_mrs[i].mr == mr) {
            lm_mrs[i] = lm_mrs[--lm_nmrs];
            lm_mr_gen++;
            break;
        }
    pthread_mutex_unlock(&lm_mr_lock);
    return lm_real_dereg(mr);
}

/* hidden aliases: this library's own definitions, whatever the program's lookups bind to */
extern __typeof__(ibv_reg_mr) lm_reg_mr_self __attribute__((alias("ibv_reg_mr"), visibility("hidden")));
extern __typeof__(ibv_reg_mr_iova2) lm_reg_mr_iova2_self
    __attribute__((alias("ibv_reg_mr_iova2"), visibility("hidden")));

/* A program linked with lib_mrc.so before libibverbs took these unversioned definitions at link time, and its
 * lookups find the first definition in load order: ours. Linked the other way, its references carry libibverbs'
 * versions and the first definition in load order is libibverbs'. Either way an unversioned lookup tells. */
int lm_mr_interposed(void) {
    return dlsym(RTLD_DEFAULT, "ibv_reg_mr") == (void *)lm_reg_mr_self &&
           dlsym(RTLD_DEFAULT, "ibv_reg_mr_iova2") == (void *)lm_reg_mr_iova2_self;
}

int lm_mr_lookup(void *vctx, uint32_t rkey, void **addr, uint64_t *iova, uint64_t *len, int *remote_write) {
    unsigned i;
    int rc = -1;
    pthread_mutex_lock(&lm_mr_lock);
    for (i = 0; i < lm_nmrs; i++)
        if (lm_mrs[i].ctx == (struct ibv_context *)vctx && lm_mrs[i].rkey == rkey) {
            *addr = lm_mrs[i].addr;
            *iova = lm_mrs[i].iova;
            *len = lm_mrs[i].len;
            *remote_write = (lm_mrs[i].access & IBV_ACCESS_REMOTE_WRITE) != 0;
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&lm_mr_lock);
    return rc;
}

unsigned long lm_mr_generation(void *vctx) {
    unsigned long g;
    (void)vctx;
    pthread_mutex_lock(&lm_mr_lock);
    g = lm_mr_gen;
    pthread_mutex_unlock(&lm_mr_lock);
    return g;
}
