# Package.cmake — the Debian package (issue 17): `cpack -G DEB` in the build directory (or the
# `package` target) makes ptx2native_<version>_<arch>.deb from the install tree (cmake/Install.cmake), under
# /usr; Depends computed by dpkg-shlibdeps (dpkg-dev) from the installed binaries. Included once, last.
set(CPACK_PACKAGE_NAME ptx2native)
set(CPACK_PACKAGE_VENDOR "ptx2native")
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Run CUDA applications on AMD GPUs, Intel GPUs and CPUs with precompiled native code")
set(CPACK_PACKAGE_DESCRIPTION "ptx2native compiles PTX ahead of time into native code (AMDGPU, SPIR-V, host \
CPU), stores it in CUDA binaries (ptx2native-fatbin rewrite) and runs them on its own CUDA driver library \
(libcuda.so.1, in /usr/lib/ptx2native, used through ptx2native-run).")
set(CPACK_PACKAGE_CONTACT "ptx2native maintainers <ptx2native@localhost>")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_GENERATOR DEB)
set(CPACK_DEB_COMPONENT_INSTALL OFF)              # one package: tools, runtime and the development files
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)             # Depends from dpkg-shlibdeps over the installed ELF files
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS OFF)
set(CPACK_STRIP_FILES OFF)
set(CPACK_SOURCE_IGNORE_FILES "/build/;/\\\\.git/")
include(CPack)

find_program(DPKG_SHLIBDEPS dpkg-shlibdeps)
find_program(DPKG_DEB dpkg-deb)
if(DPKG_DEB)
  add_test(NAME package.deb
    COMMAND bash ${CMAKE_SOURCE_DIR}/tests/install/package-deb.sh ${CMAKE_BINARY_DIR} ${CMAKE_CPACK_COMMAND})
  set_tests_properties(package.deb PROPERTIES TIMEOUT 900)
endif()
