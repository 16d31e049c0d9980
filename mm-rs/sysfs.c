// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/mm/mm_rs/: runtime switches between the Rust and the C path of
 * each mm-rs decision, so that both can be compared in one boot.
 *
 * Each file reads 1 when the Rust path is in use and 0 when the C original
 * is (for pt_reclaim, which has no C original: when tables are kept, as in
 * 6.12), and accepts exactly those two values; anything else is -EINVAL.
 */

#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <linux/sysfs.h>

/* A switch file backed by a static key: reads 1 or 0, accepts exactly those. */
static ssize_t switch_show(struct static_key_true *key, char *buf)
{
	return sysfs_emit(buf, "%d\n", static_branch_likely(key) ? 1 : 0);
}

static ssize_t switch_store(struct static_key_true *key, const char *buf,
			    size_t count)
{
	unsigned int val;

	if (kstrtouint(buf, 10, &val) || val > 1)
		return -EINVAL;
	if (val)
		static_branch_enable(key);
	else
		static_branch_disable(key);
	return count;
}

#define MM_RS_SWITCH(name)						\
DEFINE_STATIC_KEY_TRUE(mm_rs_##name##_key);				\
static ssize_t name##_show(struct kobject *kobj,			\
			   struct kobj_attribute *attr, char *buf)	\
{									\
	return switch_show(&mm_rs_##name##_key, buf);			\
}									\
static ssize_t name##_store(struct kobject *kobj,			\
			    struct kobj_attribute *attr,		\
			    const char *buf, size_t count)		\
{									\
	return switch_store(&mm_rs_##name##_key, buf, count);		\
}									\
static struct kobj_attribute name##_attr = __ATTR_RW(name)

#ifdef CONFIG_MM_RS_ANON_ORDER
MM_RS_SWITCH(anon_order);
#endif
#ifdef CONFIG_MM_RS_ANON_FAULT
MM_RS_SWITCH(anon_fault);
#endif
#ifdef CONFIG_MM_RS_PT_RECLAIM
MM_RS_SWITCH(pt_reclaim);
#endif

static struct attribute *mm_rs_attrs[] = {
#ifdef CONFIG_MM_RS_ANON_ORDER
	&anon_order_attr.attr,
#endif
#ifdef CONFIG_MM_RS_ANON_FAULT
	&anon_fault_attr.attr,
#endif
#ifdef CONFIG_MM_RS_PT_RECLAIM
	&pt_reclaim_attr.attr,
#endif
	NULL,
};

static const struct attribute_group mm_rs_attr_group = {
	.attrs = mm_rs_attrs,
};

static int __init mm_rs_sysfs_init(void)
{
	struct kobject *kobj;
	int err;

	kobj = kobject_create_and_add("mm_rs", mm_kobj);
	if (!kobj)
		return -ENOMEM;
	err = sysfs_create_group(kobj, &mm_rs_attr_group);
	if (err)
		kobject_put(kobj);
	return err;
}
subsys_initcall(mm_rs_sysfs_init);
