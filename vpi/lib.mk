# vpi/lib.mk links a Verilated model, the Verilator runtime and the shim
# into one shared library. vpi/build.mk runs it inside the Verilator output
# directory: make -C DIR -f vpi/lib.mk VPI_DIR=... VPI_SO=...
# Compile rules, flags (-DVM_COVERAGE, -DVM_TRACE, ...) and header
# dependencies all come from the generated Vmodel.mk and verilated.mk.

include Vmodel.mk
# OPT_FAST and OPT_GLOBAL from VPI_OPT; every object is rebuilt when they change.
include vpi_opt.mk
$(VK_OBJS) $(VK_GLOBAL_OBJS) shim.o: vpi_opt.mk

VPATH    += $(VPI_DIR)
CPPFLAGS += -fPIC -I$(VPI_DIR)
# -z defs: an unresolved symbol fails here, not at dlopen time.
LDFLAGS  += -shared -Wl,-z,defs

$(VPI_SO): $(VK_OBJS) $(VK_GLOBAL_OBJS) shim.o
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
