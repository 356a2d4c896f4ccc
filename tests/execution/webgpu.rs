//! The run under test: our WGSL through wgpu, on the device the Vulkan
//! reference ran on.
//!
//! Pipelines use wgpu's automatic layout, and a bind group holds exactly the
//! bindings the entry points use (what that layout has, as an application
//! binding from `getBindGroupLayout` does): a resource the translation dropped
//! is then simply unbound, and its output shows the difference. Every wgpu error of
//! a run (validation or internal) is captured and returned, not panicked on.

use std::future::Future;
use std::pin::pin;
use std::sync::{Arc, Mutex};
use std::task::{Context, Poll, Waker};

use crate::case::{Case, Render, ResourceKind, Sampler, Texture, ViewKind};
use crate::compare::Outputs;

pub struct WebGpu {
    device: wgpu::Device,
    queue: wgpu::Queue,
    /// Why the device was lost, once it is: every run after that fails, and says so.
    lost: Arc<Mutex<Option<String>>>,
}

/// Waits for a wgpu future. On native backends they are ready at once or
/// made ready by `Device::poll`, so polling with a no-op waker suffices.
pub fn block_on<F: Future>(future: F) -> F::Output {
    let mut future = pin!(future);
    let mut context = Context::from_waker(Waker::noop());
    loop {
        if let Poll::Ready(value) = future.as_mut().poll(&mut context) {
            return value;
        }
        std::thread::yield_now();
    }
}

impl WebGpu {
    /// Opens the wgpu Vulkan adapter named `device_name`, with the adapter's
    /// own limits so nothing is held to lower defaults than the reference.
    pub fn new(device_name: &str) -> Result<WebGpu, String> {
        let mut descriptor = wgpu::InstanceDescriptor::new_without_display_handle();
        descriptor.backends = wgpu::Backends::VULKAN;
        let instance = wgpu::Instance::new(descriptor);
        let adapters = block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
        let names: Vec<String> = adapters.iter().map(|a| a.get_info().name).collect();
        let adapter = adapters
            .into_iter()
            .find(|a| a.get_info().name == device_name)
            .ok_or_else(|| format!("wgpu finds no Vulkan adapter named {device_name:?} (it sees {names:?})"))?;
        let descriptor = wgpu::DeviceDescriptor {
            label: Some("execution tests"),
            required_features: adapter.features() & (wgpu::Features::SHADER_F16 | wgpu::Features::SUBGROUP),
            required_limits: adapter.limits(),
            ..Default::default()
        };
        let (device, queue) =
            block_on(adapter.request_device(&descriptor)).map_err(|e| format!("wgpu cannot open the device: {e}"))?;
        let lost = Arc::new(Mutex::new(None));
        let record = Arc::clone(&lost);
        device.set_device_lost_callback(move |reason, message| {
            *record.lock().unwrap_or_else(|e| e.into_inner()) = Some(format!("{reason:?}: {message}"));
        });
        Ok(WebGpu { device, queue, lost })
    }

    pub fn run_compute(&self, case: &Case, wgsl: &str, bindings: &[spv2wgsl::Binding]) -> Result<Outputs, String> {
        self.capturing_errors(|| {
            let module = self.shader(wgsl);
            let keys = constant_keys(case);
            let constants = constants(case, &keys, wgsl);
            let pipeline = self.device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: None,
                compilation_options: compilation_options(&constants),
                cache: None,
            });
            let resources = self.resources(case, bindings);
            let bind_group = self.bind_group(&pipeline.get_bind_group_layout(0), &resources, &[wgsl]);
            let mut encoder = self.device.create_command_encoder(&Default::default());
            {
                let mut pass = encoder.begin_compute_pass(&Default::default());
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                let [x, y, z] = case.dispatch;
                pass.dispatch_workgroups(x, y, z);
            }
            let buffers = self.read_storage(&mut encoder, &resources);
            self.queue.submit([encoder.finish()]);
            Ok(Outputs { buffers: self.finish_reads(buffers)?, targets: Vec::new() })
        })
    }

    pub fn run_render(
        &self,
        case: &Case,
        vertex_wgsl: &str,
        fragment_wgsl: &str,
        bindings: &[spv2wgsl::Binding],
    ) -> Result<Outputs, String> {
        let render = case.render.as_ref().ok_or("not a render pair")?;
        self.capturing_errors(|| {
            let vertex = self.shader(vertex_wgsl);
            let fragment = self.shader(fragment_wgsl);
            let keys = constant_keys(case);
            let vertex_constants = constants(case, &keys, vertex_wgsl);
            let fragment_constants = constants(case, &keys, fragment_wgsl);
            let attributes: Vec<[wgpu::VertexAttribute; 1]> = render
                .attributes
                .iter()
                .map(|a| [wgpu::VertexAttribute { format: a.format.webgpu, offset: 0, shader_location: a.location }])
                .collect();
            let layouts: Vec<wgpu::VertexBufferLayout> = render
                .attributes
                .iter()
                .zip(&attributes)
                .map(|(a, attribute)| wgpu::VertexBufferLayout {
                    array_stride: u64::from(a.format.components * 4),
                    step_mode: wgpu::VertexStepMode::Vertex,
                    attributes: attribute,
                })
                .collect();
            let targets: Vec<Option<wgpu::ColorTargetState>> =
                render.targets.iter().map(|t| Some(t.info().webgpu.into())).collect();
            let pipeline = self.device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
                label: None,
                layout: None,
                vertex: wgpu::VertexState {
                    module: &vertex,
                    entry_point: None,
                    compilation_options: compilation_options(&vertex_constants),
                    buffers: &layouts.into_iter().map(Some).collect::<Vec<_>>(),
                },
                primitive: wgpu::PrimitiveState {
                    topology: wgpu::PrimitiveTopology::TriangleList,
                    front_face: wgpu::FrontFace::Ccw,
                    cull_mode: None,
                    ..Default::default()
                },
                depth_stencil: None,
                multisample: wgpu::MultisampleState { count: render.samples, ..Default::default() },
                fragment: Some(wgpu::FragmentState {
                    module: &fragment,
                    entry_point: None,
                    compilation_options: compilation_options(&fragment_constants),
                    targets: &targets,
                }),
                multiview_mask: None,
                cache: None,
            });
            let resources = self.resources(case, bindings);
            let bind_group =
                self.bind_group(&pipeline.get_bind_group_layout(0), &resources, &[vertex_wgsl, fragment_wgsl]);
            let vertex_buffers: Vec<wgpu::Buffer> =
                render.attributes.iter().map(|a| self.buffer_with(&a.words, wgpu::BufferUsages::VERTEX)).collect();
            // What is read back: the target, or the single-sample texture a
            // multisampled target resolves into.
            let textures: Vec<wgpu::Texture> =
                render.targets.iter().map(|t| self.target(render, t.info(), 1)).collect();
            let views: Vec<wgpu::TextureView> = textures.iter().map(|t| t.create_view(&Default::default())).collect();
            let multisampled: Vec<wgpu::TextureView> = match render.samples {
                1 => Vec::new(),
                n => render
                    .targets
                    .iter()
                    .map(|t| self.target(render, t.info(), n).create_view(&Default::default()))
                    .collect(),
            };
            let mut encoder = self.device.create_command_encoder(&Default::default());
            {
                let attachments: Vec<_> = views
                    .iter()
                    .enumerate()
                    .map(|(location, view)| {
                        let drawn = multisampled.get(location);
                        Some(wgpu::RenderPassColorAttachment {
                            view: drawn.unwrap_or(view),
                            depth_slice: None,
                            resolve_target: drawn.map(|_| view),
                            ops: wgpu::Operations {
                                load: wgpu::LoadOp::Clear(wgpu::Color::TRANSPARENT),
                                store: wgpu::StoreOp::Store,
                            },
                        })
                    })
                    .collect();
                let mut pass = encoder.begin_render_pass(&wgpu::RenderPassDescriptor {
                    color_attachments: &attachments,
                    ..Default::default()
                });
                pass.set_pipeline(&pipeline);
                pass.set_bind_group(0, &bind_group, &[]);
                for (slot, buffer) in vertex_buffers.iter().enumerate() {
                    pass.set_vertex_buffer(slot as u32, buffer.slice(..));
                }
                let vertices = render.first_vertex..render.first_vertex + render.vertices;
                pass.draw(vertices, render.first_instance..render.first_instance + render.instances);
            }
            let pixels: Vec<_> = textures
                .iter()
                .zip(&render.targets)
                .map(|(texture, format)| self.read_texture(&mut encoder, texture, format.info().bytes_per_texel))
                .collect();
            let buffers = self.read_storage(&mut encoder, &resources);
            self.queue.submit([encoder.finish()]);
            let mut targets = Vec::new();
            for (readback, rows) in pixels {
                targets.push(rows.unpad(&self.map(&readback)?));
            }
            Ok(Outputs { buffers: self.finish_reads(buffers)?, targets })
        })
    }

    /// Runs `work` inside error scopes; `Err` carries the first error.
    fn capturing_errors(&self, work: impl FnOnce() -> Result<Outputs, String>) -> Result<Outputs, String> {
        let internal = self.device.push_error_scope(wgpu::ErrorFilter::Internal);
        let validation = self.device.push_error_scope(wgpu::ErrorFilter::Validation);
        let outputs = work();
        let (validation, internal) = (block_on(validation.pop()), block_on(internal.pop()));
        // An internal error (a device lost) comes first: it explains the validation errors after it.
        let errors = [internal, validation];
        // A lost device explains every error after it (a buffer it cannot make is "invalid"):
        // wgpu's SPIR-V of some WGSL, this case's or an earlier one's, broke the driver.
        if let Some(lost) = self.lost.lock().unwrap_or_else(|e| e.into_inner()).as_ref() {
            return Err(format!("wgpu: the device is lost ({lost}), by this case's WGSL or an earlier case's"));
        }
        match errors.into_iter().flatten().next() {
            Some(error) => Err(format!("wgpu: {error}")),
            None => outputs,
        }
    }

    fn shader(&self, wgsl: &str) -> wgpu::ShaderModule {
        self.device.create_shader_module(wgpu::ShaderModuleDescriptor {
            label: None,
            source: wgpu::ShaderSource::Wgsl(for_naga(wgsl).into()),
        })
    }

    fn buffer_with(&self, words: &[u32], usage: wgpu::BufferUsages) -> wgpu::Buffer {
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let buffer = self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size: bytes.len() as u64,
            usage: usage | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        });
        self.queue.write_buffer(&buffer, 0, &bytes);
        buffer
    }

    fn readback(&self, size: u64) -> wgpu::Buffer {
        self.device.create_buffer(&wgpu::BufferDescriptor {
            label: None,
            size,
            usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
            mapped_at_creation: false,
        })
    }

    /// Every resource of the case, by binding. A combined image sampler is a texture at its
    /// binding and a sampler where the binding map of the translation (`bindings`) says, as a
    /// program following `--binding-map` would bind it.
    fn resources(&self, case: &Case, bindings: &[spv2wgsl::Binding]) -> Vec<(u32, Resource)> {
        let mut resources = Vec::new();
        for r in &case.resources {
            let resource = match &r.kind {
                ResourceKind::Storage(words) => Resource::Storage(
                    self.buffer_with(words, wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC),
                ),
                // Also storage: a uniform block WGSL's uniform rules cannot lay out is read-only storage.
                ResourceKind::Uniform(words) => Resource::Uniform(
                    self.buffer_with(words, wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE),
                ),
                ResourceKind::Texture(texture) => Resource::Texture(self.texture(texture)),
                ResourceKind::StorageImage(texture) => {
                    let usage = wgpu::TextureUsages::STORAGE_BINDING | wgpu::TextureUsages::COPY_SRC;
                    let handle = self.uploaded_texture(texture, usage);
                    Resource::StorageImage(handle.create_view(&Default::default()), handle)
                }
                ResourceKind::Sampler(sampler) => Resource::Sampler(self.sampler(sampler)),
                ResourceKind::Combined { texture, sampler: combined } => {
                    let from_combined =
                        |b: &&spv2wgsl::Binding| (b.original.set, b.original.binding) == (Some(0), Some(r.binding));
                    // None when the shader only fetches texels: the translation drops the sampler.
                    let sampler = bindings.iter().filter(from_combined).find(|b| b.ty.starts_with("sampler"));
                    if let Some(sampler) = sampler {
                        resources.push((sampler.binding.binding, Resource::Sampler(self.sampler(combined))));
                    }
                    Resource::Texture(self.texture(texture))
                }
            };
            resources.push((r.binding, resource));
        }
        // The draw parameters WebGPU lacks, where the translation reads them (a non-indexed draw:
        // the base vertex is the first vertex).
        let draw_parameters = bindings.iter().find(|b| b.origin == Some(spv2wgsl::BindingOrigin::DrawParameters));
        if let (Some(binding), Some(render)) = (draw_parameters, &case.render) {
            let words = [render.first_vertex, render.first_instance, 0, 0];
            resources.push((
                binding.binding.binding,
                Resource::Uniform(self.buffer_with(&words, wgpu::BufferUsages::UNIFORM)),
            ));
        }
        // Push constants, which WGSL lacks: the buffer where the translation puts the block (a
        // uniform buffer, or read-only storage where its layout breaks WGSL's uniform rules),
        // padded with zeros to 16 bytes as a WGSL struct with a vector is (a `vec3` and two
        // scalars take 20 bytes of push constants, 32 of uniform buffer).
        let push_constants = bindings.iter().find(|b| b.origin == Some(spv2wgsl::BindingOrigin::PushConstant));
        if let (Some(binding), false) = (push_constants, case.push_constants.is_empty()) {
            let mut words = case.push_constants.clone();
            words.resize(words.len().next_multiple_of(4), 0);
            let usage = wgpu::BufferUsages::UNIFORM | wgpu::BufferUsages::STORAGE;
            resources.push((binding.binding.binding, Resource::Uniform(self.buffer_with(&words, usage))));
        }
        // A resource the translation moved off a binding it shared with another (Vulkan
        // aliasing) is bound again where the binding map puts it.
        for binding in bindings.iter().filter(|b| b.origin == Some(spv2wgsl::BindingOrigin::Aliased)) {
            let original = binding.original.binding;
            let aliased = resources.iter().find(|(at, _)| Some(*at) == original).map(|(_, r)| r.alias());
            if let Some(alias) = aliased {
                resources.push((binding.binding.binding, alias));
            }
        }
        resources
    }

    fn sampler(&self, sampler: &Sampler) -> wgpu::Sampler {
        let filter = if sampler.linear { wgpu::FilterMode::Linear } else { wgpu::FilterMode::Nearest };
        self.device.create_sampler(&wgpu::SamplerDescriptor {
            mag_filter: filter,
            min_filter: filter,
            compare: sampler.compare.map(|op| op.webgpu),
            ..Default::default()
        })
    }

    fn texture(&self, texture: &Texture) -> wgpu::TextureView {
        let dimension = match texture.view {
            ViewKind::D2 => wgpu::TextureViewDimension::D2,
            ViewKind::D2Array => wgpu::TextureViewDimension::D2Array,
            ViewKind::Cube => wgpu::TextureViewDimension::Cube,
            ViewKind::CubeArray => wgpu::TextureViewDimension::CubeArray,
        };
        let handle = self.uploaded_texture(texture, wgpu::TextureUsages::TEXTURE_BINDING);
        handle.create_view(&wgpu::TextureViewDescriptor { dimension: Some(dimension), ..Default::default() })
    }

    /// A texture holding `texture`'s texels, for `usage` besides the upload.
    fn uploaded_texture(&self, texture: &Texture, usage: wgpu::TextureUsages) -> wgpu::Texture {
        let info = texture.format.info();
        let size =
            wgpu::Extent3d { width: texture.width, height: texture.height, depth_or_array_layers: texture.layers };
        let handle = self.device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size,
            mip_level_count: texture.levels,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: info.webgpu,
            usage: usage | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        let bytes = texture.upload_bytes();
        for level in texture.mip_levels() {
            let layout = wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(level.width * info.bytes_per_texel),
                rows_per_image: Some(level.height),
            };
            let target = wgpu::TexelCopyTextureInfo { mip_level: level.index, ..handle.as_image_copy() };
            let size =
                wgpu::Extent3d { width: level.width, height: level.height, depth_or_array_layers: texture.layers };
            self.queue.write_texture(target, &bytes[level.bytes], layout, size);
        }
        handle
    }

    fn target(&self, render: &Render, info: &crate::case::FormatInfo, samples: u32) -> wgpu::Texture {
        self.device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d { width: render.width, height: render.height, depth_or_array_layers: 1 },
            mip_level_count: 1,
            sample_count: samples,
            dimension: wgpu::TextureDimension::D2,
            format: info.webgpu,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
            view_formats: &[],
        })
    }

    /// A bind group for the bindings of group 0 that the WGSL modules
    /// declare.
    fn bind_group(
        &self,
        layout: &wgpu::BindGroupLayout,
        resources: &[(u32, Resource)],
        wgsl: &[&str],
    ) -> wgpu::BindGroup {
        let used = used_bindings(wgsl);
        let entries: Vec<wgpu::BindGroupEntry> = resources
            .iter()
            .filter(|(binding, _)| used.contains(binding))
            .map(|(binding, resource)| wgpu::BindGroupEntry {
                binding: *binding,
                resource: match resource {
                    Resource::Storage(buffer) | Resource::Uniform(buffer) | Resource::Alias(buffer) => {
                        buffer.as_entire_binding()
                    }
                    Resource::Texture(view) | Resource::StorageImage(view, _) => {
                        wgpu::BindingResource::TextureView(view)
                    }
                    Resource::Sampler(sampler) => wgpu::BindingResource::Sampler(sampler),
                },
            })
            .collect();
        self.device.create_bind_group(&wgpu::BindGroupDescriptor { label: None, layout, entries: &entries })
    }

    /// Copies every storage buffer and image into a mappable buffer (an image's rows padded).
    fn read_storage(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        resources: &[(u32, Resource)],
    ) -> Vec<(u32, wgpu::Buffer, PaddedRows)> {
        resources
            .iter()
            .filter_map(|(binding, resource)| match resource {
                Resource::Storage(buffer) => {
                    let readback = self.readback(buffer.size());
                    encoder.copy_buffer_to_buffer(buffer, 0, &readback, 0, buffer.size());
                    let size = buffer.size() as usize;
                    Some((*binding, readback, PaddedRows { row: size, padded: size }))
                }
                Resource::StorageImage(_, texture) => {
                    let bytes_per_texel = texture.format().block_copy_size(None).expect("a colour format");
                    let (readback, rows) = self.read_texture(encoder, texture, bytes_per_texel);
                    Some((*binding, readback, rows))
                }
                _ => None,
            })
            .collect()
    }

    fn finish_reads(&self, buffers: Vec<(u32, wgpu::Buffer, PaddedRows)>) -> Result<Vec<(u32, Vec<u8>)>, String> {
        let mut read = Vec::new();
        for (binding, buffer, rows) in &buffers {
            read.push((*binding, rows.unpad(&self.map(buffer)?)));
        }
        read.sort_by_key(|(binding, _)| *binding);
        Ok(read)
    }

    /// Copies a render target or storage image into a mappable buffer whose rows are padded
    /// to wgpu's copy alignment.
    fn read_texture(
        &self,
        encoder: &mut wgpu::CommandEncoder,
        texture: &wgpu::Texture,
        bytes_per_texel: u32,
    ) -> (wgpu::Buffer, PaddedRows) {
        let row = texture.width() * bytes_per_texel;
        let padded = row.div_ceil(wgpu::COPY_BYTES_PER_ROW_ALIGNMENT) * wgpu::COPY_BYTES_PER_ROW_ALIGNMENT;
        let readback = self.readback(u64::from(padded * texture.height()));
        encoder.copy_texture_to_buffer(
            texture.as_image_copy(),
            wgpu::TexelCopyBufferInfo {
                buffer: &readback,
                layout: wgpu::TexelCopyBufferLayout { offset: 0, bytes_per_row: Some(padded), rows_per_image: None },
            },
            texture.size(),
        );
        (readback, PaddedRows { row: row as usize, padded: padded as usize })
    }

    fn map(&self, buffer: &wgpu::Buffer) -> Result<Vec<u8>, String> {
        let slice = buffer.slice(..);
        slice.map_async(wgpu::MapMode::Read, |_| {});
        self.device.poll(wgpu::PollType::wait_indefinitely()).map_err(|e| format!("wgpu: waiting for the run: {e}"))?;
        let bytes = slice.get_mapped_range().map_err(|e| format!("wgpu: reading back: {e}"))?.to_vec();
        buffer.unmap();
        Ok(bytes)
    }
}

enum Resource {
    Storage(wgpu::Buffer),
    Uniform(wgpu::Buffer),
    Texture(wgpu::TextureView),
    /// A storage image: its view, and the texture to read back.
    StorageImage(wgpu::TextureView, wgpu::Texture),
    Sampler(wgpu::Sampler),
    /// A storage buffer bound a second time (not read back twice).
    Alias(wgpu::Buffer),
}

/// Bytes read back in rows of `row` bytes, each padded to `padded` (a buffer: one row).
struct PaddedRows {
    row: usize,
    padded: usize,
}

impl PaddedRows {
    fn unpad(&self, bytes: &[u8]) -> Vec<u8> {
        if self.row == self.padded {
            return bytes.to_vec();
        }
        bytes.chunks(self.padded).flat_map(|row| &row[..self.row]).copied().collect()
    }
}

impl Resource {
    /// The same resource, for a second binding.
    fn alias(&self) -> Resource {
        match self {
            Resource::Storage(buffer) | Resource::Alias(buffer) => Resource::Alias(buffer.clone()),
            Resource::Uniform(buffer) => Resource::Uniform(buffer.clone()),
            Resource::Texture(view) | Resource::StorageImage(view, _) => Resource::Texture(view.clone()),
            Resource::Sampler(sampler) => Resource::Sampler(sampler.clone()),
        }
    }
}

/// The WGSL as wgpu 30's naga reads it: naga has the subgroup builtins but cannot parse their
/// `enable` (gfx-rs/wgpu issue 5555); the device's SUBGROUP feature enables them.
fn for_naga(wgsl: &str) -> String {
    spv2wgsl::wgsl::subgroups_enable::without_subgroups_enable(wgsl).into_owned()
}

/// The `@binding`s of `@group(0)` the entry points of the WGSL modules use (naga's validation
/// says which globals each reaches; the test has validated the modules already). A global
/// declared but unused (a sampler only a fetched-from image went with, in SPIR-V) is not in
/// the automatic layout, which rejects a bind group entry for it.
fn used_bindings(wgsl: &[&str]) -> Vec<u32> {
    let mut used = Vec::new();
    for text in wgsl {
        let Ok(module) = naga::front::wgsl::parse_str(&for_naga(text)) else { continue };
        let mut validator =
            naga::valid::Validator::new(naga::valid::ValidationFlags::all(), naga::valid::Capabilities::all());
        let Ok(info) = validator.validate(&module) else { continue };
        for index in 0..module.entry_points.len() {
            let uses = info.get_entry_point(index);
            for (handle, global) in module.global_variables.iter() {
                if let Some(binding) = &global.binding
                    && binding.group == 0
                    && !uses[handle].is_empty()
                {
                    used.push(binding.binding);
                }
            }
        }
    }
    used
}

/// The keys of the case's `spec` lines as pipeline-overridable constants:
/// their ids, which WGSL's `@id(N)` names.
fn constant_keys(case: &Case) -> Vec<String> {
    case.spec.iter().map(|(id, _)| id.to_string()).collect()
}

/// The constants a module declares (wgpu rejects the others): those whose
/// id an `override` of the WGSL carries.
fn constants<'a>(case: &Case, keys: &'a [String], wgsl: &str) -> Vec<(&'a str, f64)> {
    let ids: Vec<u16> = naga::front::wgsl::parse_str(&for_naga(wgsl))
        .map(|module| module.overrides.iter().filter_map(|(_, o)| o.id).collect())
        .unwrap_or_default();
    keys.iter()
        .zip(&case.spec)
        .filter(|(_, (id, _))| ids.iter().any(|declared| u32::from(*declared) == *id))
        .map(|(key, (_, value))| (key.as_str(), value.number))
        .collect()
}

fn compilation_options<'a>(constants: &'a [(&'a str, f64)]) -> wgpu::PipelineCompilationOptions<'a> {
    wgpu::PipelineCompilationOptions { constants, zero_initialize_workgroup_memory: true }
}
