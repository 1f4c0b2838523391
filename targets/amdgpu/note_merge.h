/* note_merge.h — merges the per-object AMDGPU metadata notes of a linked code object (see note_merge.c). */
#ifndef P2N_NOTE_MERGE_H
#define P2N_NOTE_MERGE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* In place; true if the object now has at most one NT_AMDGPU_METADATA note per note section. */
bool amdgpu_merge_metadata_notes(uint8_t *elf, size_t n);

#endif
