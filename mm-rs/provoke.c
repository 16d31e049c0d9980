// SPDX-License-Identifier: GPL-2.0
/*
 * mm-rs: provoke the mm splats that LKDTM has no case for, so that a test
 * can show its verdict catching them (not for production kernels).
 *
 * /sys/kernel/debug/mm_rs_provoke takes one word:
 *   vm_warn_on_once_folio   VM_WARN_ON_ONCE_FOLIO() on a freshly allocated
 *                           folio: dump_page() of it, then a WARN
 *
 * LKDTM (/sys/kernel/debug/provoke-crash/DIRECT) covers WARN(), BUG(), soft
 * lockups and hung tasks; scripts/verdict-boot.sh uses both.
 */
#include <linux/debugfs.h>
#include <linux/gfp.h>
#include <linux/init.h>
#include <linux/mm.h>
#include <linux/mmdebug.h>
#include <linux/string.h>
#include <linux/uaccess.h>

static ssize_t mm_rs_provoke_write(struct file *file, const char __user *ubuf,
				   size_t count, loff_t *ppos)
{
	struct folio *folio;
	char buf[32];

	if (!count || count >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, count))
		return -EFAULT;
	buf[count] = '\0';
	if (!sysfs_streq(buf, "vm_warn_on_once_folio"))
		return -EINVAL;

	folio = folio_alloc(GFP_KERNEL, 0);
	if (!folio)
		return -ENOMEM;
	VM_WARN_ON_ONCE_FOLIO(true, folio);
	folio_put(folio);
	return count;
}

static const struct file_operations mm_rs_provoke_fops = {
	.write = mm_rs_provoke_write,
	.llseek = noop_llseek,
};

static int __init mm_rs_provoke_init(void)
{
	debugfs_create_file("mm_rs_provoke", 0200, NULL, NULL, &mm_rs_provoke_fops);
	return 0;
}
late_initcall(mm_rs_provoke_init);
