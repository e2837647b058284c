/*
 * test_sysinfo.c - host facts (experiment/sysinfo.h): the /proc/cpuinfo and
 * kernel .config parsers on fixed text, and sanity of the live values.
 */
#include "experiment/sysinfo.h"

#include <errno.h>

#include "tests/unit/check.h"

int main(void)
{
	struct sysinfo_host h;
	long hz;

	CHECK_EQ_U64(sysinfo_parse_cpu_mhz("processor\t: 0\ncpu MHz\t\t: 2596.122\ncache size\t: 1 KB\n"),
		     2596);
	CHECK_EQ_U64(sysinfo_parse_cpu_mhz("cpu MHz : 800\n"), 800);
	CHECK(sysinfo_parse_cpu_mhz("processor : 0\n") == 0);
	CHECK(sysinfo_parse_cpu_mhz("cpu MHz : fast\n") == 0);
	CHECK(sysinfo_parse_cpu_mhz("") == 0);

	CHECK(sysinfo_parse_config_hz("# CONFIG_HZ_100 is not set\nCONFIG_HZ_250=y\nCONFIG_HZ=250\n") == 250);
	CHECK(sysinfo_parse_config_hz("CONFIG_HZ=1000") == 1000);
	CHECK(sysinfo_parse_config_hz("CONFIG_HZ_1000=y\n") == -ENOENT);
	CHECK(sysinfo_parse_config_hz("CONFIG_HZ=abc\n") == -ENOENT);
	CHECK(sysinfo_parse_config_hz("CONFIG_HZ=250x\n") == -ENOENT);
	CHECK(sysinfo_parse_config_hz("") == -ENOENT);
	CHECK(sysinfo_config_hz_from_boot(NULL) == -EINVAL);
	CHECK(sysinfo_config_hz_from_boot("no-such-release") == -ENOENT);

	CHECK(sysinfo_host_read(&h) == 0);
	CHECK(h.nodename[0] != '\0');
	CHECK_EQ_STR(h.sysname, "Linux");
	CHECK(h.cpus_count >= 1);
	CHECK(h.pagesize_bytes >= 4096);
	CHECK(h.pages_count > 0);
	CHECK(h.clock_mhz >= 0);

	hz = sysinfo_tick_hz();
	CHECK(hz == -ENOTSUP || (hz >= 100 && hz <= 1000));
	return check_done();
}
