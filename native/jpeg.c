/*
 * JPEG encoding through libjpeg-turbo, for src/imaging.rs. libjpeg reports errors by calling a
 * function that must not return; here it jumps back to `altflow_jpeg_encode`, which frees what it
 * allocated and returns the message, so no error ever crosses into Rust as a jump.
 *
 * Only our own pixel buffers are encoded here: untrusted images are decoded in Rust (zune-jpeg).
 */
#include <setjmp.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jpeglib.h>
#include <jerror.h>

#ifndef JCS_EXTENSIONS
#error "libjpeg-turbo is required (JCS_EXT_RGBX input)"
#endif

/* Everything one encoding needs, on the heap: after a longjmp, locals of the function that called
 * setjmp and were changed since are indeterminate, but the pointer to this block never changes. */
struct encoding {
    struct jpeg_compress_struct compress;
    struct jpeg_error_mgr errors;
    jmp_buf on_error;
    char *message;
    size_t message_size;
    struct jpeg_destination_mgr destination;
    unsigned char *data;
    size_t capacity;
};

static struct encoding *encoding_of(j_common_ptr info) {
    return (struct encoding *)((char *)info - offsetof(struct encoding, compress));
}

static void error_exit(j_common_ptr info) {
    struct encoding *encoding = encoding_of(info);
    char text[JMSG_LENGTH_MAX];
    info->err->format_message(info, text);
    snprintf(encoding->message, encoding->message_size, "%s", text);
    longjmp(encoding->on_error, 1);
}

/* libjpeg's warnings concern corrupt input, which an encoder of its own buffers does not have;
 * the default would print them to stderr. */
static void output_message(j_common_ptr info) { (void)info; }

static void init_destination(j_compress_ptr compress) { (void)compress; }

/* Called when the buffer is full: double it. */
static boolean empty_output_buffer(j_compress_ptr compress) {
    struct encoding *encoding = encoding_of((j_common_ptr)compress);
    size_t used = encoding->capacity;
    size_t capacity = 2 * encoding->capacity;
    unsigned char *data = realloc(encoding->data, capacity);
    if (data == NULL) {
        ERREXIT1(compress, JERR_OUT_OF_MEMORY, 0);
    }
    encoding->data = data;
    encoding->capacity = capacity;
    encoding->destination.next_output_byte = data + used;
    encoding->destination.free_in_buffer = capacity - used;
    return TRUE;
}

static void term_destination(j_compress_ptr compress) { (void)compress; }

/*
 * Encodes `height` rows of `width` pixels of `channels` bytes (3: RGB, 4: RGB and an ignored byte)
 * as a baseline JPEG at `quality` (1-100) with 4:2:0 chroma. On success returns 0 and sets `*out`
 * (free it with altflow_jpeg_free) and `*out_size`; on failure returns -1 and writes a message into
 * `message`.
 */
int altflow_jpeg_encode(const unsigned char *pixels, unsigned int width, unsigned int height,
                        int channels, int quality, unsigned char **out, size_t *out_size,
                        char *message, size_t message_size) {
    struct encoding *encoding = calloc(1, sizeof *encoding);
    if (encoding == NULL) {
        snprintf(message, message_size, "out of memory");
        return -1;
    }
    encoding->message = message;
    encoding->message_size = message_size;
    encoding->compress.err = jpeg_std_error(&encoding->errors);
    encoding->errors.error_exit = error_exit;
    encoding->errors.output_message = output_message;
    if (setjmp(encoding->on_error)) {
        jpeg_destroy_compress(&encoding->compress);
        free(encoding->data);
        free(encoding);
        return -1;
    }
    jpeg_create_compress(&encoding->compress);

    /* Half a byte per pixel holds nearly every photo at quality 90 without growing. */
    encoding->capacity = (size_t)width * height / 2 + 16384;
    encoding->data = malloc(encoding->capacity);
    if (encoding->data == NULL) {
        ERREXIT1(&encoding->compress, JERR_OUT_OF_MEMORY, 1);
    }
    encoding->destination.init_destination = init_destination;
    encoding->destination.empty_output_buffer = empty_output_buffer;
    encoding->destination.term_destination = term_destination;
    encoding->destination.next_output_byte = encoding->data;
    encoding->destination.free_in_buffer = encoding->capacity;
    encoding->compress.dest = &encoding->destination;

    encoding->compress.image_width = width;
    encoding->compress.image_height = height;
    encoding->compress.input_components = channels;
    encoding->compress.in_color_space = channels == 4 ? JCS_EXT_RGBX : JCS_RGB;
    jpeg_set_defaults(&encoding->compress); /* YCbCr, 4:2:0, Huffman tables of the standard */
    jpeg_set_quality(&encoding->compress, quality, TRUE);
    jpeg_start_compress(&encoding->compress, TRUE);
    size_t stride = (size_t)width * (size_t)channels;
    while (encoding->compress.next_scanline < encoding->compress.image_height) {
        JSAMPROW row = (JSAMPROW)(pixels + encoding->compress.next_scanline * stride);
        jpeg_write_scanlines(&encoding->compress, &row, 1);
    }
    jpeg_finish_compress(&encoding->compress);
    jpeg_destroy_compress(&encoding->compress);

    *out = encoding->data;
    *out_size = encoding->capacity - encoding->destination.free_in_buffer;
    free(encoding);
    return 0;
}

/* Frees a buffer returned by altflow_jpeg_encode. */
void altflow_jpeg_free(unsigned char *data) { free(data); }
