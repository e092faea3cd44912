# topology/local.mk - node topology discovery (hwloc, libnuma) and the
# ordo-agent node agent. Nothing is built here yet; configure already checks
# for hwloc, libnuma and libbpf so that the agent can land without new
# dependencies.
