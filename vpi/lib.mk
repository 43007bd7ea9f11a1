# vpi/lib.mk links a Verilated model, the Verilator runtime and the shim
# into one shared library. vpi/build.mk runs it inside the Verilator output
# directory: make -C DIR -f vpi/lib.mk VPI_DIR=... VPI_SO=...
# Compile rules, flags (-DVM_COVERAGE, -DVM_TRACE, ...) and header
# dependencies all come from the generated Vmodel.mk and verilated.mk.

include Vmodel.mk
# OPT_FAST and OPT_GLOBAL from VPI_OPT; every object is rebuilt when they,
# or the flags below, change.
include vpi_opt.mk
$(VK_OBJS) $(VK_GLOBAL_OBJS) shim.o: vpi_opt.mk $(VPI_DIR)/lib.mk

VPATH    += $(VPI_DIR)
# -fno-semantic-interposition: nothing interposes on the library's symbols
# (it is dlopened RTLD_LOCAL), and without it GCC may not inline or
# specialise any non-static function of -fPIC code: the model then evaluates
# about a third slower than the same code in an executable.
CPPFLAGS += -fPIC -fno-semantic-interposition -I$(VPI_DIR)
# -z defs: an unresolved symbol fails here, not at dlopen time. shim.map
# exports the shim's vm_* functions only: every other symbol binds inside
# the library, so the linker turns the model's and the runtime's calls and
# data references into direct ones instead of going through the PLT and GOT.
LDFLAGS  += -shared -Wl,-z,defs -Wl,--version-script=$(VPI_DIR)/shim.map

$(VPI_SO): $(VK_OBJS) $(VK_GLOBAL_OBJS) shim.o
	$(CXX) $(LDFLAGS) -o $@ $^ $(LDLIBS)
