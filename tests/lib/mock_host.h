/* mock_host.h - the mock host of the plugin test kit, by its in-tree name:
 * the header itself is tests/lib/ordo/plugin-test.h, installed as
 * <ordo/plugin-test.h>. */
#ifndef ORDO_TESTS_MOCK_HOST_H
#define ORDO_TESTS_MOCK_HOST_H

#include "ordo/plugin-test.h"

#endif
