// SPDX-License-Identifier: GPL-2.0
/*
 * C users of mmrs-meter.h, linked into the bare-metal test guests:
 * window 9 with a constant id holds no instruction at all; window 10
 * takes its id at run time (the header's switch).
 */
#include "mmrs-meter.h"

void cwin_const(void);
void cwin_var(unsigned int id);

void cwin_const(void)
{
	mmrs_meter_begin(9);
	mmrs_meter_end(9);
}

void cwin_var(unsigned int id)
{
	mmrs_meter_begin(id);
	mmrs_meter_end(id);
}
