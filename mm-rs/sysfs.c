// SPDX-License-Identifier: GPL-2.0
/*
 * /sys/kernel/mm/mm_rs/: runtime switches between the Rust and the C path of
 * each mm-rs decision, so that both can be compared in one boot.
 *
 * Each file reads 1 when the Rust path is in use and 0 when the C original
 * is, and accepts exactly those two values; anything else is -EINVAL.
 */

#include <linux/init.h>
#include <linux/kobject.h>
#include <linux/kstrtox.h>
#include <linux/mm.h>
#include <linux/mm_rs.h>
#include <linux/sysfs.h>

#ifdef CONFIG_MM_RS_ANON_ORDER
DEFINE_STATIC_KEY_TRUE(mm_rs_anon_order_key);

static ssize_t anon_order_show(struct kobject *kobj,
			       struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%d\n", mm_rs_anon_order_enabled());
}

static ssize_t anon_order_store(struct kobject *kobj,
				struct kobj_attribute *attr,
				const char *buf, size_t count)
{
	unsigned int val;
	int err;

	err = kstrtouint(buf, 10, &val);
	if (err || val > 1)
		return -EINVAL;
	if (val)
		static_branch_enable(&mm_rs_anon_order_key);
	else
		static_branch_disable(&mm_rs_anon_order_key);
	return count;
}

static struct kobj_attribute anon_order_attr = __ATTR_RW(anon_order);
#endif

static struct attribute *mm_rs_attrs[] = {
#ifdef CONFIG_MM_RS_ANON_ORDER
	&anon_order_attr.attr,
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
