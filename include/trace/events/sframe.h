/* SPDX-License-Identifier: GPL-2.0 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM sframe

#if !defined(_TRACE_SFRAME_H) || defined(TRACE_HEADER_MULTI_READ)
#define _TRACE_SFRAME_H

#include <linux/fs.h>
#include <linux/tracepoint.h>

/*
 * A section became usable for unwinding, @how: "registered" with prctl(),
 * "discovered", "shared" (discovered and taken from the image of its file
 * that the check of another mapping made), or "stored" (discovered, for
 * an object without a section, and taken from the store)
 */
TRACE_EVENT(sframe_register,
	    TP_PROTO(unsigned long text_start, unsigned long text_end,
		     unsigned long sframe_start, unsigned long sframe_end,
		     const char *how),
	    TP_ARGS(text_start, text_end, sframe_start, sframe_end, how),
	    TP_STRUCT__entry(__field(unsigned long, text_start)
			     __field(unsigned long, text_end)
			     __field(unsigned long, sframe_start)
			     __field(unsigned long, sframe_end)
			     __string(how, how)),
	    TP_fast_assign(__entry->text_start = text_start;
			   __entry->text_end = text_end;
			   __entry->sframe_start = sframe_start;
			   __entry->sframe_end = sframe_end;
			   __assign_str(how);),
	    TP_printk("text=%lx-%lx sframe=%lx-%lx %s",
		      __entry->text_start, __entry->text_end,
		      __entry->sframe_start, __entry->sframe_end,
		      __get_str(how))
);

/*
 * A mapping of a file was found without a usable section: its object has
 * no PT_GNU_SFRAME (or an unusable one) and the store has no section for
 * it.  @dev and @ino name the file, for a tool that fills the store as
 * such objects are found (sframe-store watch)
 */
TRACE_EVENT(sframe_missing,
	    TP_PROTO(unsigned long start, unsigned long end, struct file *file),
	    TP_ARGS(start, end, file),
	    TP_STRUCT__entry(__field(unsigned long, start)
			     __field(unsigned long, end)
			     __field(dev_t, dev)
			     __field(u64, ino)),
	    TP_fast_assign(__entry->start = start;
			   __entry->end = end;
			   __entry->dev = file_inode(file)->i_sb->s_dev;
			   __entry->ino = file_inode(file)->i_ino;),
	    TP_printk("text=%lx-%lx dev=%u:%u ino=%llu", __entry->start,
		      __entry->end, MAJOR(__entry->dev), MINOR(__entry->dev),
		      __entry->ino)
);

/* A text range was dropped from the registry */
TRACE_EVENT(sframe_unregister,
	    TP_PROTO(unsigned long text_start, unsigned long text_end),
	    TP_ARGS(text_start, text_end),
	    TP_STRUCT__entry(__field(unsigned long, text_start)
			     __field(unsigned long, text_end)),
	    TP_fast_assign(__entry->text_start = text_start;
			   __entry->text_end = text_end;),
	    TP_printk("text=%lx-%lx", __entry->text_start, __entry->text_end)
);

/* A section was found corrupt and will not be used again */
TRACE_EVENT(sframe_corrupt,
	    TP_PROTO(unsigned long text_start, unsigned long sframe_start,
		     const char *reason),
	    TP_ARGS(text_start, sframe_start, reason),
	    TP_STRUCT__entry(__field(unsigned long, text_start)
			     __field(unsigned long, sframe_start)
			     __string(reason, reason)),
	    TP_fast_assign(__entry->text_start = text_start;
			   __entry->sframe_start = sframe_start;
			   __assign_str(reason);),
	    TP_printk("text=%lx sframe=%lx reason=%s", __entry->text_start,
		      __entry->sframe_start, __get_str(reason))
);

/* Looking up one frame in a section failed; frame pointers are tried */
TRACE_EVENT(sframe_unwind_error,
	    TP_PROTO(unsigned long pc, int error),
	    TP_ARGS(pc, error),
	    TP_STRUCT__entry(__field(unsigned long, pc)
			     __field(int, error)),
	    TP_fast_assign(__entry->pc = pc;
			   __entry->error = error;),
	    TP_printk("pc=%lx error=%d", __entry->pc, __entry->error)
);

/*
 * A lookup read the FREs of a section (its rule cache did not have the
 * PC's rule): how many, and whether in the event (NMI or IRQ) or at the
 * return to user space
 */
TRACE_EVENT(sframe_lookup,
	    TP_PROTO(unsigned long pc, unsigned int fres, bool nofault,
		     int error),
	    TP_ARGS(pc, fres, nofault, error),
	    TP_STRUCT__entry(__field(unsigned long, pc)
			     __field(unsigned int, fres)
			     __field(bool, nofault)
			     __field(int, error)),
	    TP_fast_assign(__entry->pc = pc;
			   __entry->fres = fres;
			   __entry->nofault = nofault;
			   __entry->error = error;),
	    TP_printk("pc=%lx fres=%u %s error=%d", __entry->pc,
		      __entry->fres, __entry->nofault ? "event" : "task",
		      __entry->error)
);

#endif /* _TRACE_SFRAME_H */

/* This part must be outside protection */
#include <trace/define_trace.h>
