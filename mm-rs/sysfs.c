// SPDX-License-Identifier: GPL-2.0
/*
 * The knobs of mm-rs.
 *
 * /sys/kernel/mm/mm_rs/ holds what a user would set: the anonymous order
 * policy, exec_folio_size, and the pt_reclaim and split_underused switches
 * (features with no C original: 0 behaves as 6.12).
 *
 * /sys/kernel/debug/mm_rs/ holds the switches that only choose between the
 * Rust implementation of a decision and its C original, for tests and
 * benchmarks: they are not ABI. Without CONFIG_DEBUG_FS the Rust path, their
 * default, stays in force.
 *
 * Each switch reads 1 or 0 and accepts exactly those two values; every file
 * rejects what it does not know with -EINVAL and changes nothing.
 */

#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <linux/string.h>
#include <linux/sysfs.h>

/*
 * A switch backed by a static key (the struct static_key of a
 * static_key_true or static_key_false), in sysfs or in debugfs: reads 1 or
 * 0, accepts exactly those (a trailing newline allowed).
 */
static int switch_value(struct static_key *key)
{
	return static_key_enabled(key) ? 1 : 0;
}

static ssize_t switch_show(struct static_key *key, char *buf)
{
	return sysfs_emit(buf, "%d\n", switch_value(key));
}

/*
 * Exactly "0" or "1", a trailing newline allowed (sysfs_streq()), as the ABI
 * says: kstrtouint() would also take "01", "+1" and "000000001".
 */
static int switch_set(struct static_key *key, const char *buf)
{
	if (sysfs_streq(buf, "1"))
		static_key_enable(key);
	else if (sysfs_streq(buf, "0"))
		static_key_disable(key);
	else
		return -EINVAL;
	return 0;
}

static ssize_t switch_store(struct static_key *key, const char *buf,
			    size_t count)
{
	int err = switch_set(key, buf);

	return err ? err : count;
}

/* A switch between a Rust path and its C original: a file of debugfs. */
#define MM_RS_DEBUG_SWITCH(name) DEFINE_STATIC_KEY_TRUE(mm_rs_##name##_key)

/* A switch a user would set: a file of /sys/kernel/mm/mm_rs/. */
#define MM_RS_SWITCH(name)						\
DEFINE_STATIC_KEY_TRUE(mm_rs_##name##_key);				\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	return switch_show(&mm_rs_##name##_key.key, buf);		\
}									\
static ssize_t name##_store(struct kobject *kobj,			\
			    struct kobj_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	return switch_store(&mm_rs_##name##_key.key, buf, count);	\
}									\
static struct kobj_attribute name##_attr = __ATTR_RW(name)

#ifdef CONFIG_MM_RS_ANON_ORDER
MM_RS_DEBUG_SWITCH(anon_order);

/* The names of enum mm_rs_anon_order_policy, in its order. */
static const char * const anon_order_policy_names[] = {
	[MM_RS_ANON_ORDER_MTHP] = "mthp",
	[MM_RS_ANON_ORDER_ARCH] = "arch",
	[MM_RS_ANON_ORDER_AUTO] = "auto",
};

/*
 * anon_order_policy: which large orders an anonymous fault tries when its
 * order is chosen in Rust (anon_order 1). Exactly "mthp", "arch" or "auto"
 * (a trailing newline allowed); anything else is -EINVAL and changes nothing.
 */
int mm_rs_anon_order_policy_set(const char *buf)
{
	int policy = sysfs_match_string(anon_order_policy_names, buf);

	if (policy < 0)
		return -EINVAL;
	return mm_rs_anon_order_policy_store(policy);
}

static ssize_t anon_order_policy_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	int policy = mm_rs_anon_order_policy_load();
	int i, len = 0;

	/* As transparent_hugepage/enabled: every choice, the one in force in []. */
	for (i = 0; i < ARRAY_SIZE(anon_order_policy_names); i++)
		len += sysfs_emit_at(buf, len, i == policy ? "%s[%s]" : "%s%s",
				     i ? " " : "", anon_order_policy_names[i]);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static ssize_t anon_order_policy_store(struct kobject *kobj,
				       struct kobj_attribute *attr,
				       const char *buf, size_t count)
{
	int err = mm_rs_anon_order_policy_set(buf);

	return err ? err : count;
}

static struct kobj_attribute anon_order_policy_attr = __ATTR_RW(anon_order_policy);
#endif
#ifdef CONFIG_MM_RS_ANON_FAULT
MM_RS_DEBUG_SWITCH(anon_fault);
#endif
#ifdef CONFIG_MM_RS_PT_RECLAIM
MM_RS_SWITCH(pt_reclaim);
#endif
#ifdef CONFIG_MM_RS_EXEC_RA
MM_RS_DEBUG_SWITCH(exec_ra);
MM_RS_DEBUG_SWITCH(exec_ra_miss_exempt);

int mm_rs_exec_folio_order = -1;

/*
 * exec_folio_size: the size of exec readahead folios in bytes, 0 when there
 * is none. Writing a size sets it (a power of two from PAGE_SIZE to the page
 * cache's largest folio, else -EINVAL); writing 0 goes back to the
 * architecture's choice, which may be none.
 */
int mm_rs_exec_folio_size_set(const char *buf)
{
	u64 size;
	int order;

	if (kstrtou64(buf, 0, &size))
		return -EINVAL;
	order = size ? mm_rs_exec_folio_order_of_size(size) :
		       mm_rs_exec_arch_folio_order();
	if (size && order < 0)
		return -EINVAL;
	WRITE_ONCE(mm_rs_exec_folio_order, order);
	return 0;
}

static ssize_t exec_folio_size_show(struct kobject *kobj,
				    struct kobj_attribute *attr, char *buf)
{
	int order = READ_ONCE(mm_rs_exec_folio_order);

	return sysfs_emit(buf, "%lu\n", order < 0 ? 0 : PAGE_SIZE << order);
}

static ssize_t exec_folio_size_store(struct kobject *kobj,
				     struct kobj_attribute *attr,
				     const char *buf, size_t count)
{
	int err = mm_rs_exec_folio_size_set(buf);

	return err ? err : count;
}

static struct kobj_attribute exec_folio_size_attr = __ATTR_RW(exec_folio_size);
#endif
#ifdef CONFIG_MM_RS_SPLIT_UNDERUSED
MM_RS_SWITCH(split_underused);
#endif
#ifdef CONFIG_MM_RS_KSM_UNMERGE
MM_RS_DEBUG_SWITCH(ksm_unmerge);
#endif
#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
/*
 * ksm_unmerge_ref, benchmark builds only: 1 makes the C loop (ksm_unmerge 0)
 * test for KSM pages through the callback-based page walk, 0 (the default)
 * through 6.12's folio_walk_start(). ksm_unmerge_ref_range: 1 makes C
 * unmerge (ksm_unmerge 0) with the range walk of mainline's 2025 break_ksm(),
 * whichever ksm_unmerge_ref says. Neither chooses between C and Rust.
 */
DEFINE_STATIC_KEY_FALSE(mm_rs_ksm_unmerge_ref_key);
DEFINE_STATIC_KEY_FALSE(mm_rs_ksm_unmerge_ref_range_key);
#endif

static struct attribute *mm_rs_attrs[] = {
#ifdef CONFIG_MM_RS_ANON_ORDER
	&anon_order_policy_attr.attr,
#endif
#ifdef CONFIG_MM_RS_PT_RECLAIM
	&pt_reclaim_attr.attr,
#endif
#ifdef CONFIG_MM_RS_EXEC_RA
	&exec_folio_size_attr.attr,
#endif
#ifdef CONFIG_MM_RS_SPLIT_UNDERUSED
	&split_underused_attr.attr,
#endif
	NULL,
};

static const struct attribute_group mm_rs_attr_group = {
	.attrs = mm_rs_attrs,
};

static struct kobject *mm_rs_kobj;

/* The files of /sys/kernel/debug/mm_rs/: a name and the key it switches. */
struct mm_rs_debug_switch {
	const char *name;
	struct static_key *key;
};

static const struct mm_rs_debug_switch mm_rs_debug_switches[] = {
#ifdef CONFIG_MM_RS_ANON_ORDER
	{ "anon_order", &mm_rs_anon_order_key.key },
#endif
#ifdef CONFIG_MM_RS_ANON_FAULT
	{ "anon_fault", &mm_rs_anon_fault_key.key },
#endif
#ifdef CONFIG_MM_RS_EXEC_RA
	{ "exec_ra", &mm_rs_exec_ra_key.key },
	{ "exec_ra_miss_exempt", &mm_rs_exec_ra_miss_exempt_key.key },
#endif
#ifdef CONFIG_MM_RS_KSM_UNMERGE
	{ "ksm_unmerge", &mm_rs_ksm_unmerge_key.key },
#endif
#ifdef CONFIG_MM_RS_KSM_UNMERGE_REF
	{ "ksm_unmerge_ref", &mm_rs_ksm_unmerge_ref_key.key },
	{ "ksm_unmerge_ref_range", &mm_rs_ksm_unmerge_ref_range_key.key },
#endif
};

static ssize_t debug_switch_read(struct file *file, char __user *ubuf,
				 size_t count, loff_t *ppos)
{
	char buf[4];
	int len = scnprintf(buf, sizeof(buf), "%d\n", switch_value(file->private_data));

	return simple_read_from_buffer(ubuf, count, ppos, buf, len);
}

static ssize_t debug_switch_write(struct file *file, const char __user *ubuf,
				  size_t count, loff_t *ppos)
{
	char buf[8];
	int err;

	/* "0" or "1" and a newline; anything longer cannot be either. */
	if (*ppos || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	err = switch_set(file->private_data, buf);
	return err ? err : count;
}

static const struct file_operations mm_rs_debug_switch_fops = {
	.owner	= THIS_MODULE,
	.open	= simple_open,
	.read	= debug_switch_read,
	.write	= debug_switch_write,
	.llseek	= default_llseek,
};

#if IS_ENABLED(CONFIG_MM_RS_KUNIT_TEST)
/*
 * KUnit: writes @val to /sys/kernel/mm/mm_rs/@name through the file's own
 * store method, as a write(2) to it would; the length written, or the error.
 * -ENOENT for a name that is not there (a switch of debugfs, for one).
 */
ssize_t mm_rs_sysfs_write_test(const char *name, const char *val)
{
	struct attribute **a;

	for (a = mm_rs_attrs; *a; a++) {
		struct kobj_attribute *ka = container_of(*a, struct kobj_attribute, attr);

		if (!strcmp((*a)->name, name))
			return ka->store(mm_rs_kobj, ka, val, strlen(val));
	}
	return -ENOENT;
}

/* KUnit: reads /sys/kernel/mm/mm_rs/@name through its show method into @buf (a page). */
ssize_t mm_rs_sysfs_read_test(const char *name, char *buf)
{
	struct attribute **a;

	for (a = mm_rs_attrs; *a; a++) {
		struct kobj_attribute *ka = container_of(*a, struct kobj_attribute, attr);

		if (!strcmp((*a)->name, name))
			return ka->show(mm_rs_kobj, ka, buf);
	}
	return -ENOENT;
}

static const struct mm_rs_debug_switch *debug_switch_find(const char *name)
{
	int i;

	for (i = 0; i < ARRAY_SIZE(mm_rs_debug_switches); i++)
		if (!strcmp(mm_rs_debug_switches[i].name, name))
			return &mm_rs_debug_switches[i];
	return NULL;
}

/*
 * KUnit: writes @val to /sys/kernel/debug/mm_rs/@name as a write(2) to it
 * would (the same parser), also without CONFIG_DEBUG_FS; the length written,
 * or the error; -ENOENT for a name that is not there.
 */
ssize_t mm_rs_debugfs_write_test(const char *name, const char *val)
{
	const struct mm_rs_debug_switch *sw = debug_switch_find(name);
	int err;

	if (!sw)
		return -ENOENT;
	if (strlen(val) >= 8)
		return -EINVAL;
	err = switch_set(sw->key, val);
	return err ? err : strlen(val);
}

/* KUnit: reads /sys/kernel/debug/mm_rs/@name into @buf (a page). */
ssize_t mm_rs_debugfs_read_test(const char *name, char *buf)
{
	const struct mm_rs_debug_switch *sw = debug_switch_find(name);

	return sw ? switch_show(sw->key, buf) : -ENOENT;
}
#endif

static int __init mm_rs_sysfs_init(void)
{
	struct kobject *kobj;
	int err;

#ifdef CONFIG_MM_RS_EXEC_RA
	mm_rs_exec_folio_order = mm_rs_exec_arch_folio_order();
#endif
	kobj = kobject_create_and_add("mm_rs", mm_kobj);
	if (!kobj)
		return -ENOMEM;
	err = sysfs_create_group(kobj, &mm_rs_attr_group);
	if (err) {
		kobject_put(kobj);
		return err;
	}
	mm_rs_kobj = kobj;
	if (ARRAY_SIZE(mm_rs_debug_switches)) {
		struct dentry *dir = debugfs_create_dir("mm_rs", NULL);
		int i;

		/* Not ABI, so no error of debugfs is one of this initcall. */
		for (i = 0; i < ARRAY_SIZE(mm_rs_debug_switches); i++)
			debugfs_create_file(mm_rs_debug_switches[i].name, 0600, dir,
					    mm_rs_debug_switches[i].key,
					    &mm_rs_debug_switch_fops);
	}
	return 0;
}
subsys_initcall(mm_rs_sysfs_init);
