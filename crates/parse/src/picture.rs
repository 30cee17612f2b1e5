//! PNG pixels from untrusted bytes: a screenshot a server sent (the client's reports compare
//! it with a baseline) or one a backend captured (the engine shrinks it to fit a message).
//! One decoder, so that both read every colour type and depth the same way.

use std::fmt;

/// Why a PNG gave no pixels.
#[derive(Debug)]
pub enum PngError {
    /// The bytes are not a PNG the decoder reads (its own words).
    Decode(png::DecodingError),
    /// A palette image the decoder was asked to expand and did not.
    Palette,
}

impl fmt::Display for PngError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PngError::Decode(e) => e.fmt(f),
            PngError::Palette => f.write_str("a palette was left unexpanded"),
        }
    }
}

impl std::error::Error for PngError {}

/// Width, height and RGBA 8-bit pixels (rows top to bottom) of a PNG of any colour type and
/// depth: palettes are expanded, 16-bit channels cut to 8, grey and opaque pixels filled out.
pub fn decode_rgba(bytes: &[u8]) -> Result<(u32, u32, Vec<u8>), PngError> {
    let mut decoder = png::Decoder::new(std::io::Cursor::new(bytes));
    decoder.set_transformations(png::Transformations::EXPAND | png::Transformations::STRIP_16);
    let mut reader = decoder.read_info().map_err(PngError::Decode)?;
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).map_err(PngError::Decode)?;
    buf.truncate(info.buffer_size());
    let rgba = match info.color_type {
        png::ColorType::Rgba => buf,
        png::ColorType::Rgb => buf
            .chunks_exact(3)
            .flat_map(|p| [p[0], p[1], p[2], 255])
            .collect(),
        png::ColorType::GrayscaleAlpha => buf
            .chunks_exact(2)
            .flat_map(|p| [p[0], p[0], p[0], p[1]])
            .collect(),
        png::ColorType::Grayscale => buf.iter().flat_map(|&g| [g, g, g, 255]).collect(),
        png::ColorType::Indexed => return Err(PngError::Palette),
    };
    Ok((info.width, info.height, rgba))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png_of(color: png::ColorType, width: u32, data: &[u8]) -> Vec<u8> {
        let mut out = Vec::new();
        let mut encoder = png::Encoder::new(&mut out, width, 1);
        encoder.set_color(color);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header().expect("a header");
        writer.write_image_data(data).expect("the pixels");
        drop(writer);
        out
    }

    #[test]
    fn every_colour_type_comes_out_as_rgba() {
        let grey = png_of(png::ColorType::Grayscale, 2, &[0, 200]);
        assert_eq!(
            decode_rgba(&grey).unwrap(),
            (2, 1, vec![0, 0, 0, 255, 200, 200, 200, 255])
        );
        let grey_alpha = png_of(png::ColorType::GrayscaleAlpha, 1, &[9, 128]);
        assert_eq!(
            decode_rgba(&grey_alpha).unwrap(),
            (1, 1, vec![9, 9, 9, 128])
        );
        let rgb = png_of(png::ColorType::Rgb, 1, &[1, 2, 3]);
        assert_eq!(decode_rgba(&rgb).unwrap(), (1, 1, vec![1, 2, 3, 255]));
    }

    #[test]
    fn bytes_that_are_no_png_are_refused() {
        let e = decode_rgba(b"GIF89a").unwrap_err();
        assert!(matches!(e, PngError::Decode(_)), "{e}");
    }
}
