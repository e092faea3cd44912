/* host_table.h - the host function table plugins see (host_table.c): the
 * cycle's snapshot, read through the ABI of ordo/plugin.h. */
#ifndef ORDO_HOST_TABLE_H
#define ORDO_HOST_TABLE_H

#include <ordo/plugin.h>

/* The table (static, valid for the life of the process). */
const struct ordo_host *host_table(void);

#endif
