/* exports.c — cuGetExportTable: the driver's private ("dark API") tables.
 *
 * cudart asks for seven tables by UUID (docs: /work/shared/docs/cudart-driver.md §3–4). Today every request
 * is refused with CUDA_ERROR_INVALID_VALUE and *ppExportTable = NULL (what NVIDIA's driver answers for an
 * unknown UUID), so programs that use the driver API directly work and cudart-linked programs stop at their
 * first runtime call. The place for the tables is `export_tables[]` below: one row per UUID, pointing to a
 * static, never-moving table (cudart hashes table addresses in the integrity check, so a table must be
 * handed out at one address for the life of the process). A row with table == NULL is known but not
 * implemented yet.
 */
#include <string.h>

#include "internal.h"

typedef struct export_row {
    const char *label;
    unsigned char uuid[16];
    const void *table;
} export_row;

static const export_row export_tables[] = {
    {"unnamed (not needed)", {0xf8, 0xcf, 0xf9, 0x51, 0x21, 0x46, 0x8b, 0x4e, 0xb9, 0xe2, 0xfb, 0x46, 0x9e, 0x7c, 0x0d, 0xd9}, NULL},
    {"CUDART_INTERFACE", {0x6b, 0xd5, 0xfb, 0x6c, 0x5b, 0xf4, 0xe7, 0x4a, 0x89, 0x87, 0xd9, 0x39, 0x12, 0xfd, 0x9d, 0xf9}, NULL},
    {"TOOLS_RUNTIME_CALLBACK_HOOKS", {0xa0, 0x94, 0x79, 0x8c, 0x2e, 0x74, 0x2e, 0x74, 0x93, 0xf2, 0x08, 0x00, 0x20, 0x0c, 0x0a, 0x66}, NULL},
    {"TOOLS_TLS", {0x42, 0xd8, 0x5a, 0x81, 0x23, 0xf6, 0xcb, 0x47, 0x82, 0x98, 0xf6, 0xe7, 0x8a, 0x3a, 0xec, 0xdc}, NULL},
    {"CONTEXT_LOCAL_STORAGE_INTERFACE_V0301", {0xc6, 0x93, 0x33, 0x6e, 0x11, 0x21, 0xdf, 0x11, 0xa8, 0xc3, 0x68, 0xf3, 0x55, 0xd8, 0x95, 0x93}, NULL},
    {"CONTEXT_CHECKS", {0x26, 0x3e, 0x88, 0x60, 0x7c, 0xd2, 0x61, 0x43, 0x92, 0xf6, 0xbb, 0xd5, 0x00, 0x6d, 0xfa, 0x7e}, NULL},
    {"INTEGRITY_CHECK", {0xd4, 0x08, 0x20, 0x55, 0xbd, 0xe6, 0x70, 0x4b, 0x8d, 0x34, 0xba, 0x12, 0x3c, 0x66, 0xe1, 0xf2}, NULL},
};

CUresult cuGetExportTable(const void **ppExportTable, const CUuuid *pExportTableId)
{
    if (!ppExportTable || !pExportTableId)
        return CUDA_ERROR_INVALID_VALUE;
    *ppExportTable = NULL;
    for (size_t i = 0; i < sizeof export_tables / sizeof export_tables[0]; i++)
        if (memcmp(export_tables[i].uuid, pExportTableId->bytes, 16) == 0 && export_tables[i].table) {
            *ppExportTable = export_tables[i].table;
            return CUDA_SUCCESS;
        }
    return CUDA_ERROR_INVALID_VALUE;
}
