// SPDX-License-Identifier: GPL-2.0
/*
 * mmrs-meter - QEMU TCG plugin (plugin API v1, QEMU 7.2) that counts the
 * instructions each vCPU executes, kernel and user apart, inside
 * measurement windows that the guest opens and closes with marker
 * instructions (mmrs-meter.h), and models the instruction and data TLBs
 * of a named core.  See README in this directory.
 *
 * Privilege: API v1 cannot read registers, so an instruction is "kernel"
 * when bit 63 of its virtual address is set (x86_64 upper half, arm64
 * TTBR1 half) and "user" otherwise.
 *
 * Arguments (comma separated after the .so path):
 *   log=PATH       append window lines to PATH (default: stderr)
 *   mode=insn|tb   insn: one callback per instruction, exact (default);
 *                  tb: one callback per translation block, faster, but
 *                  over-counts the instructions that follow one that
 *                  raised a synchronous exception inside the block
 *   tlb=none|n1|x86core   TLB model (default none)
 *   tlb_cont=0|1   64K entries from VA-to-PA contiguity (n1 only; default 1)
 *   tlb_huge=0|1   2M entries from VA-to-PA contiguity (default 1)
 *   tlb_min=N      pages of a block that must have been walked, all
 *                  contiguous, before the block gets a large entry
 *                  (default 1; capped at the pages in the block)
 *   tlb_src=contig|pt   where a user page's entry size comes from: contig
 *                  (default) infers it from VA-to-PA contiguity as above;
 *                  pt (tlb=n1 only) reads the arm64 page-table entries the
 *                  guest kernel wrote: a 64K entry where the page's 16
 *                  PTEs carry the contiguous bit, 2M where a PMD block maps
 *                  it (see README, "Entry size from the page tables")
 */
#include <inttypes.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

#define MARKER_X86_MAGIC	0x4d4d5200u
#define MARKER_A64_BASE		0xaa1f03ffu
#define MARKER_A64_MASK		0xff3f03ffu
#define NR_WINDOWS		16

#define SHIFT_4K		12
#define SHIFT_64K		16
#define SHIFT_2M		21
#define SZ_4K			(1u << 0)
#define SZ_64K			(1u << 1)
#define SZ_2M			(1u << 2)
#define PAGES_PER_BLK		512	/* 4K pages in a 2M block */

#define KERN			1
#define USER			0
#define SIDE_I			0
#define SIDE_D			1

#define ARRAY_SIZE(a)		(sizeof(a) / sizeof((a)[0]))
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), (v), __ATOMIC_RELAXED)
/* Each counter has a single writer, its vCPU's thread. */
#define STAT_ADD(x, v)		WRITE_ONCE(x, (x) + (v))

enum arch { ARCH_OTHER, ARCH_X86, ARCH_A64 };
enum count_mode { MODE_INSN, MODE_TB };

/* Per-vCPU counters; index [USER] and [KERN]. */
struct stats {
	uint64_t insns[2];
	uint64_t dacc[2];		/* data accesses (modelled) */
	uint64_t itlb_miss[2];		/* L1 iTLB misses */
	uint64_t dtlb_miss[2];		/* L1 dTLB misses */
	uint64_t walks[2];		/* L2 TLB misses: page walks */
	uint64_t iwalks[2];		/* the page walks of instruction fetches */
	/* L1 iTLB misses by the entry that refilled L1: [priv][4K, 64K, 2M] */
	uint64_t itlb_miss_sz[2][3];
	/* tlb_src=pt: user walks sized from the page tables [4K, 64K, 2M] */
	uint64_t pt_walk_sz[3];
	uint64_t pt_walk_blind;		/* ... before calibration, or outside RAM */
};

struct tlbe {
	uint64_t tag;			/* va >> shift */
	uint64_t delta;			/* pa - va of the translation */
	uint64_t lru;
	uint8_t shift;
	uint8_t side;
	uint8_t valid;
};

struct tlb_arr {
	unsigned int sets, ways, sizes;
	struct tlbe *e;
};

struct tlb_level {
	unsigned int narr;
	struct tlb_arr arr[2];
	uint64_t clock;
};

struct tlb_arr_spec {
	unsigned int entries, ways, sizes;
};

struct tlb_spec {
	const char *name;
	unsigned int sizes;		/* page sizes the core can cache */
	struct tlb_arr_spec l1i[2], l1d[2], l2[2];
};

/*
 * Intel Skylake (client): Intel 64 and IA-32 Architectures Optimization
 * Reference Manual, "TLB Parameters of the Skylake Microarchitecture".
 * Arm Neoverse N1: Arm Neoverse N1 Core Technical Reference Manual,
 * "L1 instruction memory system", "L1 data memory system",
 * "L2 memory system" (MMU/TLB sections).
 */
static const struct tlb_spec tlb_specs[] = {
	{
		.name = "x86core",
		.sizes = SZ_4K | SZ_2M,
		.l1i = { { 128, 8, SZ_4K }, { 8, 8, SZ_2M } },
		.l1d = { { 64, 4, SZ_4K }, { 32, 4, SZ_2M } },
		.l2 = { { 1536, 12, SZ_4K | SZ_2M } },
	},
	{
		.name = "n1",
		.sizes = SZ_4K | SZ_64K | SZ_2M,
		.l1i = { { 48, 48, SZ_4K | SZ_64K | SZ_2M } },
		.l1d = { { 48, 48, SZ_4K | SZ_64K | SZ_2M } },
		.l2 = { { 1280, 5, SZ_4K | SZ_64K | SZ_2M } },
	},
};

/* Pages of one 2M virtual block that page walks have seen. */
struct pblk {
	uint64_t vblk;			/* va >> SHIFT_2M */
	uint64_t ref;			/* pa - va of the first page seen */
	unsigned int nseen, nbad;
	uint64_t pa[PAGES_PER_BLK];	/* page pa | 1, 0 when unseen */
};

struct pmap {
	struct pblk **slot;
	size_t cap, used;
};

struct side_state {
	uint64_t last_vpage, last_ppage;
	bool last_valid;
	struct tlb_level l1;
	struct pmap pm;
};

struct vcpu {
	struct stats st;
	struct side_state side[2];
	struct tlb_level l2;
} __attribute__((aligned(64)));

/* A translation block (mode=tb) or one instruction page (mode=insn). */
struct tbinfo {
	uint32_t n[2];			/* instructions, [USER]/[KERN] */
	uint32_t npages;
	uint32_t pad;
	uint64_t vpage[2], hpage[2];	/* page base addresses */
};

struct window {
	bool open;
	unsigned int begin_vcpu;
	struct stats start;
	uint64_t *start_insns;		/* per vCPU, for active_vcpus */
};

static enum arch arch;
static enum count_mode mode = MODE_INSN;
static const struct tlb_spec *tlb;
static unsigned int tlb_sizes;
static unsigned int tlb_min = 1;
static bool tlb_cont = true, tlb_huge = true;
static bool cont_set;
static bool tlb_pt;			/* tlb_src=pt */
static unsigned int nr_vcpus;
static struct vcpu *vcpus;
static FILE *log_fp;
static pthread_mutex_t win_lock = PTHREAD_MUTEX_INITIALIZER;
static struct window windows[NR_WINDOWS];
static uint64_t nr_unmatched_ends;

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fprintf(stderr, "mmrs-meter: out of memory\n");
		abort();
	}
	return p;
}

/* ---- interned translation-time data ---------------------------------- */

static pthread_mutex_t intern_lock = PTHREAD_MUTEX_INITIALIZER;
static struct tbinfo **intern_tab;
static size_t intern_cap, intern_used;

static uint64_t hash_bytes(const void *p, size_t len)
{
	const unsigned char *c = p;
	uint64_t h = 0xcbf29ce484222325ull;

	while (len--)
		h = (h ^ *c++) * 0x100000001b3ull;
	return h;
}

static void intern_insert(struct tbinfo *ti)
{
	size_t i = hash_bytes(ti, sizeof(*ti)) & (intern_cap - 1);

	while (intern_tab[i])
		i = (i + 1) & (intern_cap - 1);
	intern_tab[i] = ti;
}

/*
 * Translation blocks are translated again after a flush or an exception
 * inside them; the same data is shared so that memory stays bounded by
 * the distinct code the guest runs.
 */
static struct tbinfo *intern(const struct tbinfo *key)
{
	struct tbinfo *ti;
	size_t i;

	pthread_mutex_lock(&intern_lock);
	if (2 * (intern_used + 1) > intern_cap) {
		struct tbinfo **old = intern_tab;
		size_t n = intern_cap;

		intern_cap = n ? 2 * n : 4096;
		intern_tab = xcalloc(intern_cap, sizeof(*intern_tab));
		for (i = 0; i < n; i++)
			if (old[i])
				intern_insert(old[i]);
		free(old);
	}
	i = hash_bytes(key, sizeof(*key)) & (intern_cap - 1);
	for (; (ti = intern_tab[i]); i = (i + 1) & (intern_cap - 1))
		if (!memcmp(ti, key, sizeof(*key)))
			goto out;
	ti = xcalloc(1, sizeof(*ti));
	*ti = *key;
	intern_tab[i] = ti;
	intern_used++;
out:
	pthread_mutex_unlock(&intern_lock);
	return ti;
}

/* ---- page map: what page walks saw, per vCPU and side ------------------ */

static struct pblk **pmap_slot(struct pmap *pm, uint64_t vblk)
{
	size_t i = (vblk * 0x9e3779b97f4a7c15ull) >> 20;

	for (i &= pm->cap - 1; pm->slot[i]; i = (i + 1) & (pm->cap - 1))
		if (pm->slot[i]->vblk == vblk)
			break;
	return &pm->slot[i];
}

static struct pblk *pmap_get(struct pmap *pm, uint64_t vblk)
{
	struct pblk **s;

	if (2 * (pm->used + 1) > pm->cap) {
		struct pblk **old = pm->slot;
		size_t i, n = pm->cap;

		pm->cap = n ? 2 * n : 256;
		pm->slot = xcalloc(pm->cap, sizeof(*pm->slot));
		for (i = 0; i < n; i++)
			if (old[i])
				*pmap_slot(pm, old[i]->vblk) = old[i];
		free(old);
	}
	s = pmap_slot(pm, vblk);
	if (!*s) {
		*s = xcalloc(1, sizeof(**s));
		(*s)->vblk = vblk;
		pm->used++;
	}
	return *s;
}

static void pblk_add(struct pblk *b, uint64_t delta)
{
	if (!b->nseen++)
		b->ref = delta;
	else if (delta != b->ref)
		b->nbad++;
}

enum pmap_change { PM_SAME, PM_REMAPPED, PM_SPLIT };

/*
 * Record that page @va maps to @pa.  Says when large entries built from
 * this block may have become wrong: the page moved (PM_REMAPPED), or the
 * block stopped being contiguous (PM_SPLIT, which only the inference from
 * contiguity builds on).
 */
static enum pmap_change pmap_record(struct pmap *pm, uint64_t va, uint64_t pa)
{
	struct pblk *b = pmap_get(pm, va >> SHIFT_2M);
	unsigned int idx = (va >> SHIFT_4K) & (PAGES_PER_BLK - 1);
	uint64_t pp = (pa & ~0xfffull) | 1;
	uint64_t delta = (pa & ~0xfffull) - (va & ~0xfffull);
	unsigned int bad = b->nbad;

	if (b->pa[idx] == pp)
		return PM_SAME;
	if (b->pa[idx]) {
		/* Remapped (or another address space): start afresh. */
		memset(b->pa, 0, sizeof(b->pa));
		b->nseen = 0;
		b->nbad = 0;
		b->pa[idx] = pp;
		pblk_add(b, delta);
		return PM_REMAPPED;
	}
	b->pa[idx] = pp;
	pblk_add(b, delta);
	return !bad && b->nbad ? PM_SPLIT : PM_SAME;
}

/* The entry size that VA-to-PA contiguity lets page @va be covered by. */
static unsigned int coverage(struct pmap *pm, uint64_t va)
{
	struct pblk *b = pmap_get(pm, va >> SHIFT_2M);
	unsigned int first, i, n = 0;
	uint64_t d = 0;

	if ((tlb_sizes & SZ_2M) && !b->nbad &&
	    b->nseen >= (tlb_min < PAGES_PER_BLK ? tlb_min : PAGES_PER_BLK) &&
	    !(b->ref & ((1ull << SHIFT_2M) - 1)))
		return SHIFT_2M;
	if (!(tlb_sizes & SZ_64K))
		return SHIFT_4K;
	first = ((va >> SHIFT_4K) & (PAGES_PER_BLK - 1)) & ~15u;
	for (i = first; i < first + 16; i++) {
		uint64_t va_i, d_i;

		if (!b->pa[i])
			continue;
		va_i = (b->vblk << SHIFT_2M) + ((uint64_t)i << SHIFT_4K);
		d_i = (b->pa[i] & ~0xfffull) - va_i;
		if (n++ && d_i != d)
			return SHIFT_4K;
		d = d_i;
	}
	if (n >= (tlb_min < 16 ? tlb_min : 16) &&
	    !(d & ((1ull << SHIFT_64K) - 1)))
		return SHIFT_64K;
	return SHIFT_4K;
}

/* ---- tlb_src=pt: entry sizes from the guest's page tables (arm64) ------- */

/*
 * API v1 reads no guest memory, but an instruction's host address
 * (qemu_plugin_insn_haddr) points into the host mapping of guest RAM.
 * A PC-relative load (LDR literal) gives one guest physical address (its
 * data access) together with the host address of the same byte (the
 * instruction's host address plus the literal's offset): their
 * difference maps every guest physical address of that RAM block to the
 * host, and /proc/self/maps gives the block's bounds.  From then on the
 * plugin reads the descriptors the guest kernel stores: every 8-byte
 * kernel store is read back (memory callbacks run after the access) and,
 * if it is a user page descriptor with the contiguous bit or a user block
 * descriptor, its slot is remembered under the physical block it maps, in
 * one of PT_WAYS ways (one per page table mapping the block).  A walk of
 * a user page then re-reads those slots: a 64K entry only if, in one
 * way, all 16 PTEs of the naturally aligned group are valid,
 * contiguous-bit page descriptors mapping the 16 pages of the page's 64K
 * physical block in order; a 2M entry only if a slot is still a block
 * descriptor mapping the page's 2M physical block.  Stale or chance
 * matches fail that re-read.
 */
#define A64_DESC_TYPE		3ull		/* bits 1:0 */
#define A64_DESC_BLOCK		1ull		/* level 1/2 block */
#define A64_DESC_PAGE		3ull		/* level 3 page (or a table) */
#define A64_ATTRINDX		(7ull << 2)	/* MT_NORMAL 0, MT_NORMAL_TAGGED 1 */
#define A64_NG			(1ull << 11)
#define A64_CONT		(1ull << 52)
/*
 * Output address bits 47:12 (4K granule).  With LPA2 (52-bit PA) bits
 * 49:48 are OA too and OA[51:50] sits in bits 9:8; guest RAM lies below
 * 256 TiB, so bits 49:48 must be zero, and bits 9:8 are not read.
 */
#define A64_OA_MASK		0x0000fffffffff000ull
/*
 * A user mapping: valid, not global, normal memory, none of bits 63:59
 * (ignored or PBHA, never set by Linux 6.12 without POE, which QEMU 7.2
 * lacks) nor 49:48.  A kernel pointer (bits 63:59 set) is not one.  The
 * access flag is not asked for: an entry aged by the kernel still maps its
 * page, and the walk sets AF again (FEAT_HAFDBS) or faults and the kernel
 * does.
 */
#define A64_USER_MASK		(A64_DESC_TYPE | A64_NG | (6ull << 2) | (0x1full << 59) | (3ull << 48))
#define A64_USER_PAGE(v)	(((v) & A64_USER_MASK) == (A64_DESC_PAGE | A64_NG))
#define A64_USER_BLOCK(v)	(((v) & A64_USER_MASK) == (A64_DESC_BLOCK | A64_NG))
/* Slot groups remembered per physical block: one per page table mapping it. */
#define PT_WAYS			4

static struct {
	pthread_mutex_t lock;
	bool ready;			/* read with acquire: the rest is set */
	int64_t host_off;		/* host address - guest PA */
	uint64_t pa_lo, pa_hi;		/* the RAM block, guest PA [lo, hi) */
	uint64_t *cont;			/* [64K block][way]: slot group PA + 1, or 0 */
	uint64_t *huge;			/* [2M block][way]: slot PA + 1, or 0 */
	uint64_t calib, calib_bad;	/* LDR-literal calibrations */
	uint64_t cont_stores, huge_stores;
} pt = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* The host mapping in /proc/self/maps that holds @host, or false. */
static bool host_mapping(uintptr_t host, uintptr_t *lo, uintptr_t *hi)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long a, b;
	char perms[8];
	bool found = false;

	if (!f)
		return false;
	while (fscanf(f, "%lx-%lx %7s%*[^\n]", &a, &b, perms) == 3) {
		if (host >= a && host < b && perms[0] == 'r') {
			*lo = a;
			*hi = b;
			found = true;
			break;
		}
	}
	fclose(f);
	return found;
}

/*
 * One PC-relative load: @host is the host address of the literal it read
 * at guest PA @pa.  Both are on the instruction's page (see a64_literal),
 * so host - PA is a multiple of the page size; anything else is a bad
 * calibration.
 */
static void pt_calibrate(uintptr_t host, uint64_t pa)
{
	int64_t off = (int64_t)(host - pa);
	uintptr_t lo, hi;

	if (__atomic_load_n(&pt.ready, __ATOMIC_ACQUIRE)) {
		if (off == pt.host_off)
			__atomic_fetch_add(&pt.calib, 1, __ATOMIC_RELAXED);
		else if (pa >= pt.pa_lo && pa < pt.pa_hi)
			__atomic_fetch_add(&pt.calib_bad, 1, __ATOMIC_RELAXED);
		return;
	}
	if (off & ((1 << SHIFT_4K) - 1)) {
		__atomic_fetch_add(&pt.calib_bad, 1, __ATOMIC_RELAXED);
		return;
	}
	pthread_mutex_lock(&pt.lock);
	if (!pt.ready && host_mapping(host, &lo, &hi)) {
		pt.host_off = off;
		pt.pa_lo = (lo - off + (1ull << SHIFT_2M) - 1) & ~((1ull << SHIFT_2M) - 1);
		pt.pa_hi = (hi - off) & ~((1ull << SHIFT_2M) - 1);
		if (pt.pa_hi > pt.pa_lo) {
			pt.cont = xcalloc(((pt.pa_hi - pt.pa_lo) >> SHIFT_64K) * PT_WAYS,
					  sizeof(*pt.cont));
			pt.huge = xcalloc(((pt.pa_hi - pt.pa_lo) >> SHIFT_2M) * PT_WAYS,
					  sizeof(*pt.huge));
			pt.calib = 1;
			__atomic_store_n(&pt.ready, true, __ATOMIC_RELEASE);
		}
	}
	pthread_mutex_unlock(&pt.lock);
}

static bool pt_in_ram(uint64_t pa, uint64_t len)
{
	return pa >= pt.pa_lo && pa < pt.pa_hi && pt.pa_hi - pa >= len;
}

static uint64_t pt_read(uint64_t pa)
{
	return __atomic_load_n((uint64_t *)(uintptr_t)(pa + pt.host_off), __ATOMIC_RELAXED);
}

/* Do the 16 PTEs at @grp map the 64K block at @blk, contpte? */
static bool pt_cont_ok(uint64_t grp, uint64_t blk)
{
	unsigned int i;

	for (i = 0; i < 16; i++) {
		uint64_t d = pt_read(grp + 8 * i);

		if (!A64_USER_PAGE(d) || !(d & A64_CONT) ||
		    (d & A64_OA_MASK) != blk + ((uint64_t)i << SHIFT_4K))
			return false;
	}
	return true;
}

/* Does the descriptor at @slot map the 2M block at @blk? */
static bool pt_huge_ok(uint64_t slot, uint64_t blk)
{
	uint64_t d = pt_read(slot);

	return A64_USER_BLOCK(d) && (d & A64_OA_MASK) == blk;
}

/*
 * Remember @slot (a PTE group or a block descriptor) for the block @blk:
 * one way a page table.  A way whose entries no longer map the block
 * (unmapped, or a chance match) is taken first; with all of them live, the
 * slot's own way (by its address).
 */
static void pt_remember(uint64_t *ways, uint64_t slot, uint64_t blk,
			bool (*ok)(uint64_t, uint64_t))
{
	unsigned int i, take = PT_WAYS;

	for (i = 0; i < PT_WAYS; i++) {
		uint64_t w = READ_ONCE(ways[i]);

		if (w == slot + 1)
			return;
		if (take == PT_WAYS && (!w || !ok(w - 1, blk)))
			take = i;
	}
	if (take == PT_WAYS)
		take = (slot >> 7) % PT_WAYS;
	WRITE_ONCE(ways[take], slot + 1);
}

/* Any of @ways live for @blk? */
static bool pt_any(const uint64_t *ways, uint64_t blk, bool (*ok)(uint64_t, uint64_t))
{
	unsigned int i;

	for (i = 0; i < PT_WAYS; i++) {
		uint64_t w = READ_ONCE(ways[i]);

		if (w && ok(w - 1, blk))
			return true;
	}
	return false;
}

/* An 8-byte kernel store to @pa, already done: is it a user descriptor? */
static void pt_store(uint64_t pa)
{
	uint64_t v, oa;

	if ((pa & 7) || !pt_in_ram(pa, 8))
		return;
	v = pt_read(pa);
	oa = v & A64_OA_MASK;
	if (A64_USER_PAGE(v) && (v & A64_CONT) && pt_in_ram(oa, 1)) {
		uint64_t blk = oa & ~((1ull << SHIFT_64K) - 1);

		pt_remember(&pt.cont[((blk - pt.pa_lo) >> SHIFT_64K) * PT_WAYS],
			    pa & ~127ull, blk, pt_cont_ok);
		__atomic_fetch_add(&pt.cont_stores, 1, __ATOMIC_RELAXED);
	} else if (A64_USER_BLOCK(v) && !(oa & ((1ull << SHIFT_2M) - 1)) && pt_in_ram(oa, 1)) {
		pt_remember(&pt.huge[((oa - pt.pa_lo) >> SHIFT_2M) * PT_WAYS], pa, oa, pt_huge_ok);
		__atomic_fetch_add(&pt.huge_stores, 1, __ATOMIC_RELAXED);
	}
}

/*
 * The entry size of user page @va at guest PA @pa, as the page tables the
 * guest wrote give it; -1 when they cannot be read (no calibration yet, or
 * @pa outside the RAM block).
 */
static int pt_coverage(struct vcpu *v, uint64_t va, uint64_t pa)
{
	uint64_t blk;

	if (!__atomic_load_n(&pt.ready, __ATOMIC_ACQUIRE) || !pt_in_ram(pa, 1)) {
		STAT_ADD(v->st.pt_walk_blind, 1);
		return -1;
	}
	blk = pa & ~((1ull << SHIFT_2M) - 1);
	if ((tlb_sizes & SZ_2M) && !((pa - va) & ((1ull << SHIFT_2M) - 1)) &&
	    pt_any(&pt.huge[((blk - pt.pa_lo) >> SHIFT_2M) * PT_WAYS], blk, pt_huge_ok)) {
		STAT_ADD(v->st.pt_walk_sz[2], 1);
		return SHIFT_2M;
	}
	blk = pa & ~((1ull << SHIFT_64K) - 1);
	if ((tlb_sizes & SZ_64K) && !((pa - va) & ((1ull << SHIFT_64K) - 1)) &&
	    pt_any(&pt.cont[((blk - pt.pa_lo) >> SHIFT_64K) * PT_WAYS], blk, pt_cont_ok)) {
		STAT_ADD(v->st.pt_walk_sz[1], 1);
		return SHIFT_64K;
	}
	STAT_ADD(v->st.pt_walk_sz[0], 1);
	return SHIFT_4K;
}

/*
 * tlb_src=pt: the entry size of a user page's walk.  @pa is a guest PA
 * on the data side and a host address on the instruction side (README,
 * "physical addresses come from two sources").  What the page tables
 * cannot tell is a 4K entry.
 */
static unsigned int pt_shift(struct vcpu *v, int side, uint64_t va, uint64_t pa)
{
	int shift;

	if (side == SIDE_I) {
		if (!__atomic_load_n(&pt.ready, __ATOMIC_ACQUIRE)) {
			STAT_ADD(v->st.pt_walk_blind, 1);
			return SHIFT_4K;
		}
		pa -= pt.host_off;
	}
	shift = pt_coverage(v, va, pa);
	return shift < 0 ? SHIFT_4K : shift;
}

/* ---- set-associative TLB arrays with LRU replacement ------------------- */

static void level_init(struct tlb_level *l, const struct tlb_arr_spec *spec)
{
	unsigned int i;

	for (i = 0; i < 2 && spec[i].entries; i++) {
		struct tlb_arr *a = &l->arr[i];

		a->ways = spec[i].ways;
		a->sets = spec[i].entries / spec[i].ways;
		a->sizes = spec[i].sizes & tlb_sizes;
		a->e = xcalloc(spec[i].entries, sizeof(*a->e));
	}
	l->narr = i;
}

static unsigned int size_bit(unsigned int shift)
{
	return shift == SHIFT_2M ? SZ_2M : shift == SHIFT_64K ? SZ_64K : SZ_4K;
}

static struct tlbe *arr_set(struct tlb_arr *a, uint64_t tag)
{
	return &a->e[(tag % a->sets) * a->ways];
}

static const unsigned int shifts[] = { SHIFT_4K, SHIFT_64K, SHIFT_2M };

/*
 * Look @va up.  An entry with the same tag but another translation
 * (recorded by the same side) is stale: it is dropped.  An entry filled
 * by the other side is trusted, since the two sides measure physical
 * addresses differently (see README).
 */
static struct tlbe *level_lookup(struct tlb_level *l, int side, uint64_t va,
				 uint64_t pa)
{
	unsigned int i, k, w;

	for (i = 0; i < l->narr; i++) {
		struct tlb_arr *a = &l->arr[i];

		for (k = 0; k < ARRAY_SIZE(shifts); k++) {
			unsigned int s = shifts[k];
			uint64_t tag = va >> s;
			struct tlbe *e;

			if (!(a->sizes & size_bit(s)))
				continue;
			e = arr_set(a, tag);
			for (w = 0; w < a->ways; w++, e++) {
				if (!e->valid || e->shift != s || e->tag != tag)
					continue;
				if (e->side == side &&
				    e->delta != (pa & ~0xfffull) - (va & ~0xfffull)) {
					e->valid = 0;
					continue;
				}
				e->lru = ++l->clock;
				return e;
			}
		}
	}
	return NULL;
}

static void level_insert(struct tlb_level *l, int side, uint64_t va,
			 uint64_t pa, unsigned int shift)
{
	struct tlb_arr *a = NULL;
	struct tlbe *e, *victim;
	unsigned int i, w;

	for (i = 0; i < l->narr && !a; i++)
		if (l->arr[i].sizes & size_bit(shift))
			a = &l->arr[i];
	if (!a) {
		/* No array for this size: fall back to 4K entries. */
		if (shift == SHIFT_4K)
			return;
		level_insert(l, side, va, pa, SHIFT_4K);
		return;
	}
	e = arr_set(a, va >> shift);
	victim = e;
	for (w = 0; w < a->ways; w++, e++) {
		if (!e->valid) {
			victim = e;
			break;
		}
		if (e->lru < victim->lru)
			victim = e;
	}
	victim->tag = va >> shift;
	victim->delta = (pa & ~0xfffull) - (va & ~0xfffull);
	victim->shift = shift;
	victim->side = side;
	victim->valid = 1;
	victim->lru = ++l->clock;
}

/* Drop the 64K and 2M entries of @side inside the 2M block of @va. */
static void level_drop_large(struct tlb_level *l, int side, uint64_t va)
{
	uint64_t base = va & ~((1ull << SHIFT_2M) - 1);
	unsigned int i, k, w;

	for (i = 0; i < l->narr; i++) {
		struct tlb_arr *a = &l->arr[i];

		for (k = 0; k < 33; k++) {
			unsigned int s = k < 32 ? SHIFT_64K : SHIFT_2M;
			uint64_t tag = (base + ((uint64_t)k << SHIFT_64K)) >> s;
			struct tlbe *e;

			if (!(a->sizes & size_bit(s)))
				continue;
			e = arr_set(a, tag);
			for (w = 0; w < a->ways; w++, e++)
				if (e->valid && e->side == side &&
				    e->shift == s && e->tag == tag)
					e->valid = 0;
		}
	}
}

/*
 * Drop the entries of @side smaller than @shift inside the @shift block of
 * @va: a TLB never holds a page twice, and the entries filled while the
 * block was still being learned (fewer than tlb_min pages walked) are this
 * model's, not the hardware's, which fills the large entry from the first
 * walk.  Left in place, the lookups of those pages would keep finding
 * them and refill the L1 with small entries.
 */
static void level_drop_small(struct tlb_level *l, int side, uint64_t va,
			     unsigned int shift)
{
	uint64_t base = va & ~((1ull << shift) - 1);
	unsigned int i, k, w;

	for (i = 0; i < l->narr; i++) {
		struct tlb_arr *a = &l->arr[i];
		unsigned int entries = a->sets * a->ways;

		for (k = 0; k < ARRAY_SIZE(shifts) && shifts[k] < shift; k++) {
			unsigned int s = shifts[k];
			uint64_t n = 1ull << (shift - s), j;
			struct tlbe *e;

			if (!(a->sizes & size_bit(s)))
				continue;
			/* Fewer probes: the whole array (a 2M block's 512 4K tags) */
			if (n * a->ways >= entries) {
				for (j = 0, e = a->e; j < entries; j++, e++)
					if (e->valid && e->side == side && e->shift == s &&
					    (e->tag << s) - base < (1ull << shift))
						e->valid = 0;
				continue;
			}
			for (j = 0; j < n; j++) {
				uint64_t tag = (base >> s) + j;

				e = arr_set(a, tag);
				for (w = 0; w < a->ways; w++, e++)
					if (e->valid && e->side == side &&
					    e->shift == s && e->tag == tag)
						e->valid = 0;
			}
		}
	}
}

static void tlb_access(struct vcpu *v, int side, uint64_t va, uint64_t pa,
		       int priv)
{
	struct side_state *ss = &v->side[side];
	uint64_t vpage = va >> SHIFT_4K, ppage = pa >> SHIFT_4K;
	/* a user page (whoever accesses it) sized from the page tables */
	bool from_pt = tlb_pt && !(va >> 63);
	enum pmap_change change;
	unsigned int shift;
	struct tlbe *e;

	/* The last page used is the most recently used entry: a hit. */
	if (ss->last_valid && ss->last_vpage == vpage && ss->last_ppage == ppage)
		return;
	ss->last_vpage = vpage;
	ss->last_ppage = ppage;
	ss->last_valid = true;

	if (level_lookup(&ss->l1, side, va, pa))
		return;
	if (side == SIDE_I)
		STAT_ADD(v->st.itlb_miss[priv], 1);
	else
		STAT_ADD(v->st.dtlb_miss[priv], 1);

	e = level_lookup(&v->l2, side, va, pa);
	if (e) {
		shift = e->shift;
	} else {
		STAT_ADD(v->st.walks[priv], 1);
		if (side == SIDE_I)
			STAT_ADD(v->st.iwalks[priv], 1);
		change = pmap_record(&ss->pm, va, pa);
		if (change == PM_REMAPPED || (change == PM_SPLIT && !from_pt)) {
			level_drop_large(&ss->l1, side, va);
			level_drop_large(&v->l2, side, va);
		}
		if (from_pt)
			shift = pt_shift(v, side, va, pa);
		else
			shift = coverage(&ss->pm, va);
		if (shift != SHIFT_4K) {
			level_drop_small(&ss->l1, side, va, shift);
			level_drop_small(&v->l2, side, va, shift);
		}
		level_insert(&v->l2, side, va, pa, shift);
	}
	if (side == SIDE_I)
		STAT_ADD(v->st.itlb_miss_sz[priv][shift == SHIFT_4K ? 0 : shift == SHIFT_64K ? 1 : 2], 1);
	level_insert(&ss->l1, side, va, pa, shift);
}

/* ---- execution callbacks ----------------------------------------------- */

static void ifetch_pages(struct vcpu *v, const struct tbinfo *ti, int priv)
{
	uint32_t i;

	for (i = 0; i < ti->npages; i++)
		if (ti->hpage[i])
			tlb_access(v, SIDE_I, ti->vpage[i], ti->hpage[i], priv);
}

static void vcpu_insn_exec(unsigned int vcpu_index, void *udata)
{
	int priv = (uintptr_t)udata >> 63;

	STAT_ADD(vcpus[vcpu_index].st.insns[priv], 1);
}

static void vcpu_ifetch(unsigned int vcpu_index, void *udata)
{
	const struct tbinfo *ti = udata;

	ifetch_pages(&vcpus[vcpu_index], ti, ti->vpage[0] >> 63);
}

static void vcpu_tb_exec(unsigned int vcpu_index, void *udata)
{
	const struct tbinfo *ti = udata;
	struct vcpu *v = &vcpus[vcpu_index];

	STAT_ADD(v->st.insns[USER], ti->n[USER]);
	STAT_ADD(v->st.insns[KERN], ti->n[KERN]);
	if (tlb)
		ifetch_pages(v, ti, ti->n[KERN] ? KERN : USER);
}

static void vcpu_mem(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
		     uint64_t vaddr, void *udata)
{
	struct vcpu *v = &vcpus[vcpu_index];
	struct side_state *ss = &v->side[SIDE_D];
	struct qemu_plugin_hwaddr *hw = NULL;
	int priv = (uintptr_t)udata;

	/*
	 * tlb_src=pt: a kernel's 8-byte store may be a page-table entry; the
	 * memory callback runs after the store, so the entry can be read.
	 */
	if (tlb_pt && priv == KERN && qemu_plugin_mem_is_store(info) &&
	    qemu_plugin_mem_size_shift(info) == 3 &&
	    __atomic_load_n(&pt.ready, __ATOMIC_ACQUIRE)) {
		hw = qemu_plugin_get_hwaddr(info, vaddr);
		if (hw && !qemu_plugin_hwaddr_is_io(hw))
			pt_store(qemu_plugin_hwaddr_phys_addr(hw));
	}
	/*
	 * Same page as the last access: a hit.  Its translation cannot have
	 * changed meanwhile without a data access to another page (the
	 * page-table store itself), so the physical address is not needed.
	 */
	if (ss->last_valid && ss->last_vpage == vaddr >> SHIFT_4K) {
		STAT_ADD(v->st.dacc[priv], 1);
		return;
	}
	if (!hw)
		hw = qemu_plugin_get_hwaddr(info, vaddr);
	if (!hw)
		return;
	STAT_ADD(v->st.dacc[priv], 1);
	tlb_access(v, SIDE_D, vaddr, qemu_plugin_hwaddr_phys_addr(hw), priv);
}

/*
 * A PC-relative load (tlb_src=pt): udata is the host address of the
 * literal it reads, with the privilege in bit 63.  It calibrates the
 * host mapping of guest RAM, then counts as any data access.
 */
static void vcpu_mem_lit(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
			 uint64_t vaddr, void *udata)
{
	uint64_t u = (uintptr_t)udata;
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

	if (hw && !qemu_plugin_hwaddr_is_io(hw))
		pt_calibrate(u & ~(1ull << 63), qemu_plugin_hwaddr_phys_addr(hw));
	vcpu_mem(vcpu_index, info, vaddr, (void *)(uintptr_t)(u >> 63));
}

/* ---- windows ------------------------------------------------------------ */

static void stats_sum(struct stats *sum)
{
	uint64_t *d = (uint64_t *)sum;
	unsigned int i, j;

	memset(sum, 0, sizeof(*sum));
	for (i = 0; i < nr_vcpus; i++) {
		uint64_t *s = (uint64_t *)&vcpus[i].st;

		for (j = 0; j < sizeof(*sum) / sizeof(uint64_t); j++)
			d[j] += READ_ONCE(s[j]);
	}
}

static double mpki(uint64_t miss, uint64_t insns)
{
	return insns ? 1000.0 * (double)miss / (double)insns : 0.0;
}

static void log_line(const char *line)
{
	fputs(line, log_fp);
	fflush(log_fp);
}

/*
 * Marker udata: bit 0 end, bits 1-4 id, bits 8-23 and 24-39: user and
 * kernel instructions after the marker in its block that mode=tb has
 * already counted.
 */
static void vcpu_marker(unsigned int vcpu_index, void *udata)
{
	uint64_t m = (uintptr_t)udata;
	unsigned int id = (m >> 1) & 15, i, active = 0;
	struct window *w = &windows[id];
	struct stats now, d;
	uint64_t *pn = (uint64_t *)&now, *ps, *pd = (uint64_t *)&d;
	char line[2048];
	size_t j;

	pthread_mutex_lock(&win_lock);
	stats_sum(&now);
	now.insns[USER] -= (m >> 8) & 0xffff;
	now.insns[KERN] -= (m >> 24) & 0xffff;
	if (!(m & 1)) {
		if (w->open) {
			snprintf(line, sizeof(line),
				 "mmrs-meter: warning: window %u opened again on vcpu %u before its end\n",
				 id, vcpu_index);
			log_line(line);
		}
		w->open = true;
		w->begin_vcpu = vcpu_index;
		w->start = now;
		for (i = 0; i < nr_vcpus; i++)
			w->start_insns[i] = READ_ONCE(vcpus[i].st.insns[USER]) +
					    READ_ONCE(vcpus[i].st.insns[KERN]);
		goto out;
	}
	if (!w->open) {
		nr_unmatched_ends++;
		snprintf(line, sizeof(line),
			 "mmrs-meter: warning: window %u ended on vcpu %u but not open\n",
			 id, vcpu_index);
		log_line(line);
		goto out;
	}
	w->open = false;
	ps = (uint64_t *)&w->start;
	for (j = 0; j < sizeof(d) / sizeof(uint64_t); j++)
		pd[j] = pn[j] - ps[j];
	for (i = 0; i < nr_vcpus; i++)
		active += READ_ONCE(vcpus[i].st.insns[USER]) +
			  READ_ONCE(vcpus[i].st.insns[KERN]) != w->start_insns[i];
	j = snprintf(line, sizeof(line),
		     "mmrs-meter: window %u vcpus=%u active_vcpus=%u begin_vcpu=%u end_vcpu=%u kernel_insns=%" PRIu64 " user_insns=%" PRIu64,
		     id, nr_vcpus, active, w->begin_vcpu, vcpu_index,
		     d.insns[KERN], d.insns[USER]);
	if (tlb)
		j += snprintf(line + j, sizeof(line) - j,
			      " tlb=%s itlb_mpki_k=%.3f itlb_mpki_u=%.3f dtlb_mpki_k=%.3f dtlb_mpki_u=%.3f"
			      " itlb_miss_k=%" PRIu64 " itlb_miss_u=%" PRIu64
			      " dtlb_miss_k=%" PRIu64 " dtlb_miss_u=%" PRIu64
			      " walk_k=%" PRIu64 " walk_u=%" PRIu64
			      " dacc_k=%" PRIu64 " dacc_u=%" PRIu64
			      " itlb_walk_k=%" PRIu64 " itlb_walk_u=%" PRIu64
			      " itlb_miss_k_4k=%" PRIu64 " itlb_miss_k_64k=%" PRIu64 " itlb_miss_k_2m=%" PRIu64
			      " itlb_miss_u_4k=%" PRIu64 " itlb_miss_u_64k=%" PRIu64 " itlb_miss_u_2m=%" PRIu64,
			      tlb->name,
			      mpki(d.itlb_miss[KERN], d.insns[KERN]),
			      mpki(d.itlb_miss[USER], d.insns[USER]),
			      mpki(d.dtlb_miss[KERN], d.insns[KERN]),
			      mpki(d.dtlb_miss[USER], d.insns[USER]),
			      d.itlb_miss[KERN], d.itlb_miss[USER],
			      d.dtlb_miss[KERN], d.dtlb_miss[USER],
			      d.walks[KERN], d.walks[USER],
			      d.dacc[KERN], d.dacc[USER],
			      d.iwalks[KERN], d.iwalks[USER],
			      d.itlb_miss_sz[KERN][0], d.itlb_miss_sz[KERN][1], d.itlb_miss_sz[KERN][2],
			      d.itlb_miss_sz[USER][0], d.itlb_miss_sz[USER][1], d.itlb_miss_sz[USER][2]);
	if (tlb_pt)
		j += snprintf(line + j, sizeof(line) - j,
			      " pt_walk_4k=%" PRIu64 " pt_walk_64k=%" PRIu64 " pt_walk_2m=%" PRIu64 " pt_walk_blind=%" PRIu64,
			      d.pt_walk_sz[0], d.pt_walk_sz[1], d.pt_walk_sz[2], d.pt_walk_blind);
	snprintf(line + j, sizeof(line) - j, "\n");
	log_line(line);
out:
	pthread_mutex_unlock(&win_lock);
}

/* ---- translation -------------------------------------------------------- */

/* Returns -1 for no marker, else bit 0 end and bits 1-4 the id. */
static int marker_of(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t len = qemu_plugin_insn_size(insn);
	uint32_t w;

	if (arch == ARCH_X86 && len == 8 && b[0] == 0x0f && b[1] == 0x1f &&
	    b[2] == 0x84 && b[3] == 0x00) {
		w = b[4] | b[5] << 8 | b[6] << 16 | (uint32_t)b[7] << 24;
		if ((w & ~0x1fu) == MARKER_X86_MAGIC)
			return ((w >> 4) & 1) | (w & 15) << 1;
	} else if (arch == ARCH_A64 && len == 4) {
		unsigned int shift, imm6;

		w = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
		shift = (w >> 22) & 3;
		imm6 = (w >> 10) & 63;
		if ((w & MARKER_A64_MASK) == MARKER_A64_BASE && shift < 2 &&
		    imm6 >= 16 && imm6 < 32)
			return shift | (imm6 - 16) << 1;
	}
	return -1;
}

/*
 * The offset from an aarch64 LDR (literal) to the literal it loads, or 0:
 * LDR W/X/S/D and LDRSW, whose one access of at most 8 bytes lies wholly
 * in the instruction's own 4K page (the host address of another page need
 * not follow the guest's); not LDR Q (two accesses in QEMU 7.2) nor PRFM
 * (none).  A literal at the instruction itself (offset 0) is not used.
 */
static int64_t a64_literal(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	uint64_t va = qemu_plugin_insn_vaddr(insn), lit;
	unsigned int opc, size;
	uint32_t w;
	int32_t imm19;

	if (arch != ARCH_A64 || qemu_plugin_insn_size(insn) != 4)
		return 0;
	w = b[0] | b[1] << 8 | b[2] << 16 | (uint32_t)b[3] << 24;
	if ((w & 0x3b000000u) != 0x18000000u)
		return 0;
	opc = w >> 30;
	if (opc == 3 || (opc == 2 && (w & (1u << 26))))	/* PRFM, unallocated; Q */
		return 0;
	size = opc == 1 ? 8 : 4;
	imm19 = (int32_t)(((w >> 5) & 0x7ffff) << 13) >> 13;
	lit = va + (int64_t)imm19 * 4;
	if ((lit & ~0xfffull) != (va & ~0xfffull) || (lit & 0xfff) + size > 0x1000)
		return 0;
	return (int64_t)imm19 * 4;
}

static uint64_t page_of(uint64_t a)
{
	return a & ~((1ull << SHIFT_4K) - 1);
}

static void vcpu_tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t n = qemu_plugin_tb_n_insns(tb), i, j;
	struct tbinfo key;
	int *mk;

	(void)id;
	if (!n)
		return;
	mk = xcalloc(n, sizeof(*mk));
	memset(&key, 0, sizeof(key));
	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		uint64_t va = qemu_plugin_insn_vaddr(insn);
		uint64_t ha = (uintptr_t)qemu_plugin_insn_haddr(insn);
		bool newpage = !i || page_of(va) != key.vpage[key.npages - 1];
		int priv = va >> 63;
		int64_t lit;

		mk[i] = marker_of(insn);
		if (mk[i] < 0)
			key.n[priv]++;
		if (tlb && tlb_pt && ha && (lit = a64_literal(insn)))
			qemu_plugin_register_vcpu_mem_cb(insn, vcpu_mem_lit,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 (void *)(uintptr_t)((ha + lit) |
									     (uint64_t)priv << 63));
		else if (tlb)
			qemu_plugin_register_vcpu_mem_cb(insn, vcpu_mem,
							 QEMU_PLUGIN_CB_NO_REGS,
							 QEMU_PLUGIN_MEM_RW,
							 (void *)(uintptr_t)priv);
		if (newpage && key.npages < 2) {
			key.vpage[key.npages] = page_of(va);
			key.hpage[key.npages] = ha ? page_of(ha) : 0;
			key.npages++;
			if (tlb && mode == MODE_INSN) {
				struct tbinfo pg;

				memset(&pg, 0, sizeof(pg));
				pg.npages = 1;
				pg.vpage[0] = page_of(va);
				pg.hpage[0] = ha ? page_of(ha) : 0;
				qemu_plugin_register_vcpu_insn_exec_cb(
					insn, vcpu_ifetch,
					QEMU_PLUGIN_CB_NO_REGS, intern(&pg));
			}
		}
		if (mode == MODE_INSN && mk[i] < 0)
			qemu_plugin_register_vcpu_insn_exec_cb(
				insn, vcpu_insn_exec, QEMU_PLUGIN_CB_NO_REGS,
				(void *)(uintptr_t)va);
	}
	if (mode == MODE_TB)
		qemu_plugin_register_vcpu_tb_exec_cb(tb, vcpu_tb_exec,
						     QEMU_PLUGIN_CB_NO_REGS,
						     intern(&key));
	for (i = 0; i < n; i++) {
		uint64_t m, after[2] = { 0, 0 };

		if (mk[i] < 0)
			continue;
		if (mode == MODE_TB)
			for (j = i + 1; j < n; j++)
				if (mk[j] < 0)
					after[qemu_plugin_insn_vaddr(
						qemu_plugin_tb_get_insn(tb, j)) >> 63]++;
		m = (uint64_t)mk[i] | after[USER] << 8 | after[KERN] << 24;
		qemu_plugin_register_vcpu_insn_exec_cb(
			qemu_plugin_tb_get_insn(tb, i), vcpu_marker,
			QEMU_PLUGIN_CB_NO_REGS, (void *)(uintptr_t)m);
	}
	free(mk);
}

/* ---- setup -------------------------------------------------------------- */

static void plugin_exit(qemu_plugin_id_t id, void *p)
{
	struct stats s;
	char line[1024];
	unsigned int i;
	int n;

	(void)id;
	(void)p;
	stats_sum(&s);
	for (i = 0; i < NR_WINDOWS; i++) {
		if (!windows[i].open)
			continue;
		snprintf(line, sizeof(line),
			 "mmrs-meter: warning: window %u still open at exit\n", i);
		log_line(line);
	}
	n = snprintf(line, sizeof(line),
		     "mmrs-meter: total mode=%s tlb=%s tlb_cont=%d tlb_huge=%d tlb_min=%u tlb_drop=1 tlb_src=%s vcpus=%u kernel_insns=%" PRIu64 " user_insns=%" PRIu64 " unmatched_ends=%" PRIu64,
		     mode == MODE_TB ? "tb" : "insn", tlb ? tlb->name : "none",
		     !!(tlb_sizes & SZ_64K), !!(tlb_sizes & SZ_2M), tlb_min,
		     tlb_pt ? "pt" : "contig", nr_vcpus, s.insns[KERN], s.insns[USER],
		     nr_unmatched_ends);
	/*
	 * tlb_src=pt: whether the host mapping of guest RAM was found, the
	 * guest PA range it covers, the descriptors seen stored, and the user
	 * walks by the entry size the page tables gave (blind: unreadable).
	 */
	if (tlb_pt)
		n += snprintf(line + n, sizeof(line) - n,
			      " pt_ready=%d pt_ram=0x%" PRIx64 "-0x%" PRIx64 " pt_calib=%" PRIu64 " pt_calib_bad=%" PRIu64
			      " pt_cont_stores=%" PRIu64 " pt_huge_stores=%" PRIu64
			      " pt_walk_4k=%" PRIu64 " pt_walk_64k=%" PRIu64 " pt_walk_2m=%" PRIu64 " pt_walk_blind=%" PRIu64,
			      pt.ready, pt.pa_lo, pt.pa_hi, pt.calib, pt.calib_bad,
			      pt.cont_stores, pt.huge_stores, s.pt_walk_sz[0], s.pt_walk_sz[1],
			      s.pt_walk_sz[2], s.pt_walk_blind);
	snprintf(line + n, sizeof(line) - n, "\n");
	log_line(line);
	if (log_fp != stderr)
		fclose(log_fp);
	log_fp = stderr;
}

static int parse_bool(const char *k, const char *v, bool *out)
{
	if (!strcmp(v, "0") || !strcmp(v, "1")) {
		*out = v[0] == '1';
		return 0;
	}
	if (!qemu_plugin_bool_parse(k, v, out)) {
		fprintf(stderr, "mmrs-meter: %s=%s: want 0/1, on/off, true/false\n", k, v);
		return -1;
	}
	return 0;
}

static int parse_args(int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		char *eq = strchr(argv[i], '=');
		const char *v;
		char *end;

		if (!eq) {
			fprintf(stderr, "mmrs-meter: argument '%s' is not KEY=VALUE\n", argv[i]);
			return -1;
		}
		*eq = '\0';
		v = eq + 1;
		if (!strcmp(argv[i], "log")) {
			log_fp = fopen(v, "a");
			if (!log_fp) {
				perror(v);
				return -1;
			}
		} else if (!strcmp(argv[i], "mode")) {
			if (!strcmp(v, "insn")) {
				mode = MODE_INSN;
			} else if (!strcmp(v, "tb")) {
				mode = MODE_TB;
			} else {
				fprintf(stderr, "mmrs-meter: mode=%s: want insn or tb\n", v);
				return -1;
			}
		} else if (!strcmp(argv[i], "tlb")) {
			size_t k;

			tlb = NULL;
			for (k = 0; k < ARRAY_SIZE(tlb_specs); k++)
				if (!strcmp(v, tlb_specs[k].name))
					tlb = &tlb_specs[k];
			if (!tlb && strcmp(v, "none")) {
				fprintf(stderr, "mmrs-meter: tlb=%s: want none, n1 or x86core\n", v);
				return -1;
			}
		} else if (!strcmp(argv[i], "tlb_cont")) {
			if (parse_bool(argv[i], v, &tlb_cont))
				return -1;
			cont_set = true;
		} else if (!strcmp(argv[i], "tlb_huge")) {
			if (parse_bool(argv[i], v, &tlb_huge))
				return -1;
		} else if (!strcmp(argv[i], "tlb_src")) {
			if (!strcmp(v, "pt")) {
				tlb_pt = true;
			} else if (!strcmp(v, "contig")) {
				tlb_pt = false;
			} else {
				fprintf(stderr, "mmrs-meter: tlb_src=%s: want contig or pt\n", v);
				return -1;
			}
		} else if (!strcmp(argv[i], "tlb_min")) {
			unsigned long n = strtoul(v, &end, 10);

			if (!*v || *end || n < 1 || n > PAGES_PER_BLK) {
				fprintf(stderr, "mmrs-meter: tlb_min=%s: want 1-%d\n", v, PAGES_PER_BLK);
				return -1;
			}
			tlb_min = n;
		} else {
			fprintf(stderr, "mmrs-meter: unknown argument '%s'\n", argv[i]);
			return -1;
		}
	}
	return 0;
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	unsigned int i, k;

	log_fp = stderr;
	if (parse_args(argc, argv))
		return -1;
	if (info->version.min > QEMU_PLUGIN_VERSION ||
	    info->version.cur < QEMU_PLUGIN_VERSION) {
		fprintf(stderr, "mmrs-meter: built for plugin API %d, QEMU offers %d-%d\n",
			QEMU_PLUGIN_VERSION, info->version.min, info->version.cur);
		return -1;
	}
	if (!strcmp(info->target_name, "x86_64") || !strcmp(info->target_name, "i386"))
		arch = ARCH_X86;
	else if (!strcmp(info->target_name, "aarch64"))
		arch = ARCH_A64;
	else
		fprintf(stderr, "mmrs-meter: no markers for target %s: counting totals only\n",
			info->target_name);

	if (tlb_pt && (!tlb || strcmp(tlb->name, "n1") || arch != ARCH_A64)) {
		fprintf(stderr, "mmrs-meter: tlb_src=pt reads arm64 page-table entries: it needs tlb=n1 on qemu-system-aarch64\n");
		return -1;
	}
	if (tlb) {
		if (!strcmp(tlb->name, "x86core") && cont_set && tlb_cont)
			fprintf(stderr, "mmrs-meter: tlb=x86core has no 64K entries: tlb_cont=1 ignored\n");
		tlb_sizes = SZ_4K;
		if (tlb_cont)
			tlb_sizes |= SZ_64K;
		if (tlb_huge)
			tlb_sizes |= SZ_2M;
		tlb_sizes &= tlb->sizes;
	}
	if (!info->system_emulation) {
		fprintf(stderr, "mmrs-meter: system emulation only (qemu-system-*)\n");
		return -1;
	}

	nr_vcpus = info->system.max_vcpus;
	vcpus = xcalloc(nr_vcpus, sizeof(*vcpus));
	for (i = 0; i < NR_WINDOWS; i++)
		windows[i].start_insns = xcalloc(nr_vcpus, sizeof(uint64_t));
	for (i = 0; tlb && i < nr_vcpus; i++) {
		for (k = 0; k < 2; k++)
			level_init(&vcpus[i].side[k].l1, k == SIDE_I ? tlb->l1i : tlb->l1d);
		level_init(&vcpus[i].l2, tlb->l2);
	}

	qemu_plugin_register_vcpu_tb_trans_cb(id, vcpu_tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
