/* SPDX-License-Identifier: MIT */
/* The pipeline cache kept in a file across processes (option pipeline_cache). Every worker of a
 * run creates its own device and the pipelines its cases meet; the driver's own disk cache
 * misses at random when several processes compile at once (an H100 measured 0.01-3 s of
 * pipeline creation per worker, warm). Loading a VkPipelineCache from a file this backend wrote
 * makes those creations hits. The file is ours alone: a header (magic, version, size, FNV-1a
 * of the data) in front of vkGetPipelineCacheData's bytes, so that a truncated or altered file
 * is never handed to the driver (the driver checks its own header: another device or driver
 * version starts empty). It is written when the instance ends and holds more than it was
 * loaded with: merged with what the file holds by then, written to a temporary file, renamed.
 * Everything here is best effort: a file that cannot be read or written costs speed, never a
 * result. */
#define _DEFAULT_SOURCE /* getpid */
#include <fcntl.h>      /* open */
#include <stdio.h>      /* fdopen */
#include <stdlib.h>     /* getenv */
#include <string.h>     /* memcpy */
#include <sys/stat.h>
#include <unistd.h> /* getpid */

#include "vk_internal.h"

#define VK_PCACHE_MAGIC "BITCTSPC"
#define VK_PCACHE_VERSION 1u
#define VK_PCACHE_MAX ((uint64_t)256 << 20) /* a bigger file is not read */

typedef struct vk_pcache_header {
    char magic[8];
    uint32_t version;
    uint32_t reserved;
    uint64_t size;
    uint64_t hash; /* FNV-1a (64 bits) of the `size` bytes that follow */
} vk_pcache_header;

/* FNV-1a, 64 bits: enough to tell a whole file from one cut short or altered (the backend links
 * no hashing library: docs/layout.md). */
static uint64_t vk_pcache_hash(const uint8_t *p, size_t n)
{
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; ++i) {
        h = (h ^ p[i]) * 0x100000001b3ull;
    }
    return h;
}

/* The file for this device and driver: the directory (option, else $XDG_CACHE_HOME/bitcts or
 * $HOME/.cache/bitcts) and a name from the device's vendor, device and pipelineCacheUUID.
 * @return 0, or -1 when there is none (off, no home). */
static int vk_pcache_path(const bitcts__vk_instance *inst, const VkPhysicalDeviceProperties *p,
                          char *out, size_t cap)
{
    char dir[sizeof inst->opt.pipeline_cache];
    const char *xdg = getenv("XDG_CACHE_HOME");
    const char *home = getenv("HOME");
    if (strcmp(inst->opt.pipeline_cache, "off") == 0) {
        return -1;
    }
    if (strcmp(inst->opt.pipeline_cache, "auto") != 0) {
        snprintf(dir, sizeof dir, "%s", inst->opt.pipeline_cache);
    } else if (xdg != NULL && xdg[0] == '/') {
        snprintf(dir, sizeof dir, "%s/bitcts", xdg);
        mkdir(xdg, 0700);
    } else if (home != NULL && home[0] == '/') {
        char cache[sizeof dir];
        snprintf(cache, sizeof cache, "%s/.cache", home);
        mkdir(cache, 0700);
        snprintf(dir, sizeof dir, "%s/bitcts", cache);
    } else {
        return -1;
    }
    mkdir(dir, 0700);
    char uuid[2 * VK_UUID_SIZE + 1];
    for (uint32_t i = 0; i < VK_UUID_SIZE; ++i) {
        snprintf(uuid + 2 * i, 3, "%02x", p->pipelineCacheUUID[i]);
    }
    const int n = snprintf(out, cap, "%s/vulkan-pipelines-%04x-%04x-%s.bin", dir, p->vendorID,
                           p->deviceID, uuid);
    return n > 0 && (size_t)n < cap ? 0 : -1;
}

/* The file at path opened for reading when it is a regular file (never a FIFO, a device or a
 * link's target: opening waits on nothing), else NULL. */
static FILE *vk_pcache_open_regular(const char *path)
{
    const int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC);
    struct stat st;
    if (fd < 0) {
        return NULL;
    }
    FILE *f = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fdopen(fd, "rb") : NULL;
    if (f == NULL) {
        close(fd);
    }
    return f;
}

/* The data of a file this backend wrote, or NULL (none, unreadable, altered, too big). */
static void *vk_pcache_read(const char *path, size_t *size)
{
    vk_pcache_header h;
    void *data = NULL;
    FILE *f = vk_pcache_open_regular(path);
    *size = 0;
    if (f == NULL) {
        return NULL;
    }
    if (fread(&h, sizeof h, 1, f) == 1 && memcmp(h.magic, VK_PCACHE_MAGIC, 8) == 0 &&
        h.version == VK_PCACHE_VERSION && h.size > 0 && h.size <= VK_PCACHE_MAX &&
        (data = malloc((size_t)h.size)) != NULL) {
        if (fread(data, 1, (size_t)h.size, f) != (size_t)h.size || fgetc(f) != EOF ||
            vk_pcache_hash(data, (size_t)h.size) != h.hash) {
            free(data);
            data = NULL;
        }
    }
    fclose(f);
    *size = data != NULL ? (size_t)h.size : 0;
    return data;
}

static VkPipelineCache vk_pcache_create(bitcts__vk_instance *inst, const void *data, size_t size)
{
    const VkPipelineCacheCreateInfo info = {.sType = VK_STRUCTURE_TYPE_PIPELINE_CACHE_CREATE_INFO,
                                            .initialDataSize = size,
                                            .pInitialData = data};
    VkPipelineCache cache = VK_NULL_HANDLE;
    if (inst->vk.vkCreatePipelineCache(inst->device, &info, NULL, &cache) != VK_SUCCESS) {
        return VK_NULL_HANDLE;
    }
    return cache;
}

void bitcts__vk_pcache_name(bitcts__vk_instance *inst, const VkPhysicalDeviceProperties *p)
{
    if (vk_pcache_path(inst, p, inst->pcache_path, sizeof inst->pcache_path) != 0) {
        inst->pcache_path[0] = '\0';
    }
}

void bitcts__vk_pcache_open(bitcts__vk_instance *inst)
{
    if (inst->pcache_path[0] == '\0') {
        return;
    }
    size_t size = 0;
    void *data = vk_pcache_read(inst->pcache_path, &size);
    inst->pcache = vk_pcache_create(inst, data, size);
    if (inst->pcache == VK_NULL_HANDLE && data != NULL) { /* the driver refused the data */
        inst->pcache = vk_pcache_create(inst, NULL, 0);
        size = 0;
    }
    inst->pcache_loaded = size;
    free(data);
}

/* The cache's data, with room for the header in front; NULL when empty or out of memory. */
static uint8_t *vk_pcache_data(bitcts__vk_instance *inst, size_t *size)
{
    *size = 0;
    if (inst->vk.vkGetPipelineCacheData(inst->device, inst->pcache, size, NULL) != VK_SUCCESS ||
        *size == 0 || *size > VK_PCACHE_MAX) {
        return NULL;
    }
    uint8_t *buf = malloc(sizeof(vk_pcache_header) + *size);
    if (buf != NULL &&
        inst->vk.vkGetPipelineCacheData(inst->device, inst->pcache, size,
                                        buf + sizeof(vk_pcache_header)) != VK_SUCCESS) {
        free(buf);
        buf = NULL;
    }
    return buf;
}

void bitcts__vk_pcache_close(bitcts__vk_instance *inst)
{
    if (inst->pcache == VK_NULL_HANDLE) {
        return;
    }
    size_t size = 0;
    uint8_t *buf = NULL;
    if (inst->vk.vkGetPipelineCacheData(inst->device, inst->pcache, &size, NULL) == VK_SUCCESS &&
        size > inst->pcache_loaded) { /* pipelines it did not hold: merged with the file's */
        size_t now = 0;
        void *file = vk_pcache_read(inst->pcache_path, &now);
        const VkPipelineCache other =
            file != NULL ? vk_pcache_create(inst, file, now) : VK_NULL_HANDLE;
        if (other != VK_NULL_HANDLE) {
            inst->vk.vkMergePipelineCaches(inst->device, inst->pcache, 1, &other);
            inst->vk.vkDestroyPipelineCache(inst->device, other, NULL);
        }
        free(file);
        buf = vk_pcache_data(inst, &size);
    }
    char tmp[sizeof inst->pcache_path + 32];
    FILE *f = NULL;
    if (buf != NULL) {
        vk_pcache_header h = {.version = VK_PCACHE_VERSION, .size = size};
        memcpy(h.magic, VK_PCACHE_MAGIC, 8);
        h.hash = vk_pcache_hash(buf + sizeof h, size);
        memcpy(buf, &h, sizeof h);
        snprintf(tmp, sizeof tmp, "%s.%ld.tmp", inst->pcache_path, (long)getpid());
        /* A new file of its own: never through a link or onto something already there. */
        const int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        f = fd >= 0 ? fdopen(fd, "wb") : NULL;
        if (fd >= 0 && f == NULL) {
            close(fd);
            remove(tmp);
        }
    }
    if (f != NULL) {
        const int ok =
            fwrite(buf, 1, sizeof(vk_pcache_header) + size, f) == sizeof(vk_pcache_header) + size;
        if (fclose(f) != 0 || !ok || rename(tmp, inst->pcache_path) != 0) {
            remove(tmp);
        }
    }
    free(buf);
    inst->vk.vkDestroyPipelineCache(inst->device, inst->pcache, NULL);
    inst->pcache = VK_NULL_HANDLE;
}
