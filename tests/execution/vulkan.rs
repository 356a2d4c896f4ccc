//! The reference run: the original SPIR-V on the Vulkan device, through ash.
//!
//! One instance and device serve the whole process (a worker, see `worker.rs`); each run creates
//! its own objects (buffers, pipeline, command pool) and destroys them when done, so runs on
//! different threads share only the queue, which is behind a mutex.
//! Memory is host-visible and coherent (lavapipe's is), so buffers are
//! written and read through a mapping.

use std::ffi::CString;
use std::sync::Mutex;

use ash::vk;

use crate::case::{Case, Module, ResourceKind, Sampler, Stage, Texture, ViewKind};
use crate::compare::Outputs;

pub struct Vulkan {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: Mutex<vk::Queue>,
    queue_family: u32,
    memory_types: vk::PhysicalDeviceMemoryProperties,
    /// The device's name, for picking the same device in wgpu.
    pub device_name: String,
}

impl Drop for Vulkan {
    fn drop(&mut self) {
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn vk_error(what: &str) -> impl Fn(vk::Result) -> String + '_ {
    move |e| format!("Vulkan: {what} failed: {e}")
}

impl Vulkan {
    /// Opens the first Vulkan 1.3 device with a compute and graphics queue,
    /// preferring a CPU device (lavapipe). `Err` says why there is none.
    pub fn new() -> Result<Vulkan, String> {
        let entry = unsafe { ash::Entry::load() }
            .map_err(|e| format!("cannot load the Vulkan loader (libvulkan.so.1): {e}"))?;
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance =
            unsafe { entry.create_instance(&vk::InstanceCreateInfo::default().application_info(&app), None) }
                .map_err(vk_error("creating an instance (is a Vulkan driver installed?)"))?;
        match Self::open_device(&instance) {
            Ok((physical, device, queue_family, device_name)) => {
                let memory_types = unsafe { instance.get_physical_device_memory_properties(physical) };
                let queue = unsafe { device.get_device_queue(queue_family, 0) };
                Ok(Vulkan {
                    _entry: entry,
                    instance,
                    device,
                    queue: Mutex::new(queue),
                    queue_family,
                    memory_types,
                    device_name,
                })
            }
            Err(e) => {
                unsafe { instance.destroy_instance(None) };
                Err(e)
            }
        }
    }

    fn open_device(instance: &ash::Instance) -> Result<(vk::PhysicalDevice, ash::Device, u32, String), String> {
        let physicals = unsafe { instance.enumerate_physical_devices() }.map_err(vk_error("listing devices"))?;
        let mut candidates = Vec::new();
        for physical in physicals {
            let properties = unsafe { instance.get_physical_device_properties(physical) };
            if properties.api_version < vk::API_VERSION_1_3 {
                continue;
            }
            let families = unsafe { instance.get_physical_device_queue_family_properties(physical) };
            let wanted = vk::QueueFlags::COMPUTE | vk::QueueFlags::GRAPHICS;
            let Some(family) = families.iter().position(|f| f.queue_flags.contains(wanted)) else {
                continue;
            };
            let cpu_first = properties.device_type != vk::PhysicalDeviceType::CPU;
            let name = properties.device_name_as_c_str().map(|n| n.to_string_lossy().into_owned()).unwrap_or_default();
            candidates.push((cpu_first, physical, family as u32, name));
        }
        candidates.sort_by_key(|c| c.0);
        let Some((_, physical, family, name)) = candidates.into_iter().next() else {
            return Err("no Vulkan 1.3 device with a graphics and compute queue".into());
        };
        let priorities = [1.0];
        let queues = [vk::DeviceQueueCreateInfo::default().queue_family_index(family).queue_priorities(&priorities)];
        let mut vulkan13 = vk::PhysicalDeviceVulkan13Features::default().dynamic_rendering(true);
        // 16-bit values (WGSL's f16, in buffers too), where the device has them.
        let mut supported11 = vk::PhysicalDeviceVulkan11Features::default();
        let mut supported12 = vk::PhysicalDeviceVulkan12Features::default();
        let mut supported =
            vk::PhysicalDeviceFeatures2::default().push_next(&mut supported11).push_next(&mut supported12);
        unsafe { instance.get_physical_device_features2(physical, &mut supported) };
        let gather_extended = supported.features.shader_image_gather_extended == vk::TRUE;
        let cube_arrays = supported.features.image_cube_array == vk::TRUE;
        let mut vulkan11 = vk::PhysicalDeviceVulkan11Features::default()
            .storage_buffer16_bit_access(supported11.storage_buffer16_bit_access == vk::TRUE)
            .uniform_and_storage_buffer16_bit_access(supported11.uniform_and_storage_buffer16_bit_access == vk::TRUE)
            .storage_input_output16(supported11.storage_input_output16 == vk::TRUE)
            // Pointers chosen at run time, where the device has them.
            .variable_pointers_storage_buffer(supported11.variable_pointers_storage_buffer == vk::TRUE)
            .variable_pointers(supported11.variable_pointers == vk::TRUE);
        // Scalar and std430 uniform block layouts, where the device has them.
        let mut vulkan12 = vk::PhysicalDeviceVulkan12Features::default()
            .shader_float16(supported12.shader_float16 == vk::TRUE)
            .scalar_block_layout(supported12.scalar_block_layout == vk::TRUE)
            .uniform_buffer_standard_layout(supported12.uniform_buffer_standard_layout == vk::TRUE);
        // Gathers with offsets (ImageGatherExtended) and cube arrays, where the device has them.
        let features = vk::PhysicalDeviceFeatures::default()
            .fragment_stores_and_atomics(true)
            .vertex_pipeline_stores_and_atomics(true)
            .shader_image_gather_extended(gather_extended)
            .image_cube_array(cube_arrays);
        let info = vk::DeviceCreateInfo::default()
            .queue_create_infos(&queues)
            .enabled_features(&features)
            .push_next(&mut vulkan11)
            .push_next(&mut vulkan12)
            .push_next(&mut vulkan13);
        let device =
            unsafe { instance.create_device(physical, &info, None) }.map_err(vk_error("creating the device"))?;
        Ok((physical, device, family, name))
    }

    /// Runs a compute case: every storage buffer's contents afterwards.
    pub fn run_compute(&self, case: &Case) -> Result<Outputs, String> {
        let module = case.module(Stage::Compute).ok_or("no compute module")?;
        let mut run = Run::new(self);
        let bindings = run.bind_resources(case, vk::ShaderStageFlags::COMPUTE)?;
        let shader = run.shader(module)?;
        let entry = CString::new(entry_point(module)?).map_err(|e| e.to_string())?;
        let (entries, data) = specialization(case);
        let spec = vk::SpecializationInfo::default().map_entries(&entries).data(&data);
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(shader)
            .name(&entry)
            .specialization_info(&spec);
        let info = vk::ComputePipelineCreateInfo::default().stage(stage).layout(bindings.pipeline_layout);
        let pipeline = unsafe { self.device.create_compute_pipelines(vk::PipelineCache::null(), &[info], None) }
            .map_err(|(_, e)| vk_error("creating the compute pipeline")(e))?[0];
        run.owned.push(Owned::Pipeline(pipeline));

        let commands = run.begin()?;
        run.upload_textures(commands, &bindings);
        unsafe {
            self.device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::COMPUTE, pipeline);
            self.device.cmd_bind_descriptor_sets(
                commands,
                vk::PipelineBindPoint::COMPUTE,
                bindings.pipeline_layout,
                0,
                &[bindings.set],
                &[],
            );
            push_constants(&self.device, commands, case, &bindings);
            let [x, y, z] = case.dispatch;
            self.device.cmd_dispatch(commands, x, y, z);
        }
        run.download_images(commands, &bindings);
        run.finish(commands)?;
        Ok(Outputs { buffers: Run::read_storage(&bindings), targets: Vec::new() })
    }

    /// Runs a render pair: every colour attachment's pixels, then every
    /// storage buffer.
    pub fn run_render(&self, case: &Case) -> Result<Outputs, String> {
        let render = case.render.as_ref().ok_or("not a render pair")?;
        let vertex = case.module(Stage::Vertex).ok_or("no vertex module")?;
        let fragment = case.module(Stage::Fragment).ok_or("no fragment module")?;
        let mut run = Run::new(self);
        let bindings = run.bind_resources(case, vk::ShaderStageFlags::VERTEX | vk::ShaderStageFlags::FRAGMENT)?;
        let (entries, data) = specialization(case);
        let spec = vk::SpecializationInfo::default().map_entries(&entries).data(&data);
        let names = [CString::new(entry_point(vertex)?).unwrap(), CString::new(entry_point(fragment)?).unwrap()];
        let stages = [
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::VERTEX)
                .module(run.shader(vertex)?)
                .name(&names[0])
                .specialization_info(&spec),
            vk::PipelineShaderStageCreateInfo::default()
                .stage(vk::ShaderStageFlags::FRAGMENT)
                .module(run.shader(fragment)?)
                .name(&names[1])
                .specialization_info(&spec),
        ];

        // One vertex buffer per attribute, binding i for attribute i.
        let mut vertex_bindings = Vec::new();
        let mut vertex_attributes = Vec::new();
        let mut vertex_buffers = Vec::new();
        for (index, attribute) in render.attributes.iter().enumerate() {
            vertex_bindings.push(
                vk::VertexInputBindingDescription::default()
                    .binding(index as u32)
                    .stride(attribute.format.components * 4)
                    .input_rate(vk::VertexInputRate::VERTEX),
            );
            vertex_attributes.push(
                vk::VertexInputAttributeDescription::default()
                    .location(attribute.location)
                    .binding(index as u32)
                    .format(attribute.format.vulkan),
            );
            vertex_buffers.push(run.buffer(&attribute.words, vk::BufferUsageFlags::VERTEX_BUFFER)?.buffer);
        }
        let vertex_input = vk::PipelineVertexInputStateCreateInfo::default()
            .vertex_binding_descriptions(&vertex_bindings)
            .vertex_attribute_descriptions(&vertex_attributes);
        let assembly =
            vk::PipelineInputAssemblyStateCreateInfo::default().topology(vk::PrimitiveTopology::TRIANGLE_LIST);
        let viewport_state = vk::PipelineViewportStateCreateInfo::default().viewport_count(1).scissor_count(1);
        let raster = vk::PipelineRasterizationStateCreateInfo::default()
            .polygon_mode(vk::PolygonMode::FILL)
            .cull_mode(vk::CullModeFlags::NONE)
            .front_face(vk::FrontFace::COUNTER_CLOCKWISE)
            .line_width(1.0);
        let samples = vk::SampleCountFlags::from_raw(render.samples);
        let multisample = vk::PipelineMultisampleStateCreateInfo::default().rasterization_samples(samples);
        let blend: Vec<_> = render
            .targets
            .iter()
            .map(|_| vk::PipelineColorBlendAttachmentState::default().color_write_mask(vk::ColorComponentFlags::RGBA))
            .collect();
        let blend_state = vk::PipelineColorBlendStateCreateInfo::default().attachments(&blend);
        let dynamic = [vk::DynamicState::VIEWPORT, vk::DynamicState::SCISSOR];
        let dynamic_state = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(&dynamic);
        let formats: Vec<vk::Format> = render.targets.iter().map(|t| t.info().vulkan).collect();
        let mut rendering = vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
        let info = vk::GraphicsPipelineCreateInfo::default()
            .stages(&stages)
            .vertex_input_state(&vertex_input)
            .input_assembly_state(&assembly)
            .viewport_state(&viewport_state)
            .rasterization_state(&raster)
            .multisample_state(&multisample)
            .color_blend_state(&blend_state)
            .dynamic_state(&dynamic_state)
            .layout(bindings.pipeline_layout)
            .push_next(&mut rendering);
        let pipeline = unsafe { self.device.create_graphics_pipelines(vk::PipelineCache::null(), &[info], None) }
            .map_err(|(_, e)| vk_error("creating the graphics pipeline")(e))?[0];
        run.owned.push(Owned::Pipeline(pipeline));

        let extent = vk::Extent2D { width: render.width, height: render.height };
        // Each target: the image drawn into, the single-sample image it
        // resolves into when multisampled, and a buffer to read it back.
        let mut targets = Vec::new();
        for format in &render.targets {
            let usage = vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_SRC;
            let shape = Shape::flat(extent, format.info().vulkan);
            let image = run.image(&shape, usage, samples)?;
            let resolve = match render.samples {
                1 => None,
                _ => Some(run.image(&shape, usage, vk::SampleCountFlags::TYPE_1)?),
            };
            let bytes = (render.width * render.height * format.info().bytes_per_texel) as usize;
            let readback = run.buffer(&vec![0; bytes / 4], vk::BufferUsageFlags::TRANSFER_DST)?;
            targets.push((image, resolve, readback));
        }

        let commands = run.begin()?;
        run.upload_textures(commands, &bindings);
        let device = &self.device;
        unsafe {
            for (image, resolve, _) in &targets {
                for image in std::iter::once(image).chain(resolve) {
                    run.transition(
                        commands,
                        image.image,
                        vk::ImageAspectFlags::COLOR,
                        vk::ImageLayout::UNDEFINED,
                        vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                    );
                }
            }
            let attachments: Vec<_> = targets
                .iter()
                .map(|(image, resolve, _)| {
                    let attachment = vk::RenderingAttachmentInfo::default()
                        .image_view(image.view)
                        .image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL)
                        .load_op(vk::AttachmentLoadOp::CLEAR)
                        .store_op(vk::AttachmentStoreOp::STORE)
                        .clear_value(vk::ClearValue::default());
                    match resolve {
                        None => attachment,
                        Some(resolve) => attachment
                            .resolve_mode(vk::ResolveModeFlags::AVERAGE)
                            .resolve_image_view(resolve.view)
                            .resolve_image_layout(vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL),
                    }
                })
                .collect();
            let area = vk::Rect2D { offset: vk::Offset2D::default(), extent };
            let rendering =
                vk::RenderingInfo::default().render_area(area).layer_count(1).color_attachments(&attachments);
            device.cmd_begin_rendering(commands, &rendering);
            device.cmd_bind_pipeline(commands, vk::PipelineBindPoint::GRAPHICS, pipeline);
            device.cmd_bind_descriptor_sets(
                commands,
                vk::PipelineBindPoint::GRAPHICS,
                bindings.pipeline_layout,
                0,
                &[bindings.set],
                &[],
            );
            push_constants(&self.device, commands, case, &bindings);
            // The WGSL computes exactly the SPIR-V's clip coordinates (no y flip in the
            // translation); Vulkan's y axis points down where WebGPU's points up, so the Vulkan
            // viewport is flipped to put both images the same way up.
            let viewport = vk::Viewport {
                x: 0.0,
                y: render.height as f32,
                width: render.width as f32,
                height: -(render.height as f32),
                min_depth: 0.0,
                max_depth: 1.0,
            };
            device.cmd_set_viewport(commands, 0, &[viewport]);
            device.cmd_set_scissor(commands, 0, &[area]);
            if !vertex_buffers.is_empty() {
                let offsets = vec![0; vertex_buffers.len()];
                device.cmd_bind_vertex_buffers(commands, 0, &vertex_buffers, &offsets);
            }
            device.cmd_draw(commands, render.vertices, render.instances, render.first_vertex, render.first_instance);
            device.cmd_end_rendering(commands);
            run.download_images(commands, &bindings);
            for (image, resolve, readback) in &targets {
                let image = resolve.as_ref().unwrap_or(image);
                run.transition(
                    commands,
                    image.image,
                    vk::ImageAspectFlags::COLOR,
                    vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                );
                let region =
                    vk::BufferImageCopy::default().image_subresource(color_layers()).image_extent(extent.into());
                device.cmd_copy_image_to_buffer(
                    commands,
                    image.image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    readback.buffer,
                    &[region],
                );
            }
        }
        run.finish(commands)?;
        let targets = targets.iter().map(|(_, _, readback)| readback.read()).collect();
        Ok(Outputs { buffers: Run::read_storage(&bindings), targets })
    }
}

/// The name of the module's first entry point.
fn entry_point(module: &Module) -> Result<String, String> {
    crate::common::spirv_facts(&module.spirv)
        .and_then(|facts| facts.entry_points.into_iter().next())
        .map(|entry| entry.name)
        .ok_or_else(|| format!("{}: no entry point", module.path))
}

/// Every mip level and layer of an image.
fn whole_range(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange::default()
        .aspect_mask(aspect)
        .level_count(vk::REMAINING_MIP_LEVELS)
        .layer_count(vk::REMAINING_ARRAY_LAYERS)
}

fn color_layers() -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers::default().aspect_mask(vk::ImageAspectFlags::COLOR).layer_count(1)
}

/// The case's `spec` lines as VkSpecializationInfo's entries and data (4 bytes each).
fn specialization(case: &Case) -> (Vec<vk::SpecializationMapEntry>, Vec<u8>) {
    let entries = case
        .spec
        .iter()
        .enumerate()
        .map(|(index, (id, _))| vk::SpecializationMapEntry { constant_id: *id, offset: index as u32 * 4, size: 4 })
        .collect();
    let data = case.spec.iter().flat_map(|(_, value)| value.bits.to_le_bytes()).collect();
    (entries, data)
}

/// A Vulkan object a run created, destroyed when the run ends.
enum Owned {
    Buffer(vk::Buffer),
    Memory(vk::DeviceMemory),
    Image(vk::Image),
    View(vk::ImageView),
    Sampler(vk::Sampler),
    SetLayout(vk::DescriptorSetLayout),
    PipelineLayout(vk::PipelineLayout),
    DescriptorPool(vk::DescriptorPool),
    Shader(vk::ShaderModule),
    Pipeline(vk::Pipeline),
    CommandPool(vk::CommandPool),
    Fence(vk::Fence),
}

struct Buffer {
    buffer: vk::Buffer,
    mapped: *const u8,
    size: usize,
}

impl Buffer {
    fn read(&self) -> Vec<u8> {
        unsafe { std::slice::from_raw_parts(self.mapped, self.size) }.to_vec()
    }
}

struct Image {
    image: vk::Image,
    view: vk::ImageView,
}

/// What an image is: size, levels, layers, how it is viewed, and its format.
struct Shape {
    extent: vk::Extent2D,
    levels: u32,
    layers: u32,
    view: ViewKind,
    format: vk::Format,
    aspect: vk::ImageAspectFlags,
}

impl Shape {
    /// A 2D colour image of one level.
    fn flat(extent: vk::Extent2D, format: vk::Format) -> Shape {
        Shape { extent, levels: 1, layers: 1, view: ViewKind::D2, format, aspect: vk::ImageAspectFlags::COLOR }
    }

    fn of(texture: &Texture) -> Shape {
        let info = texture.format.info();
        Shape {
            extent: vk::Extent2D { width: texture.width, height: texture.height },
            levels: texture.levels,
            layers: texture.layers,
            view: texture.view,
            format: info.vulkan,
            aspect: info.aspect,
        }
    }
}

/// Records the case's push constants, if it has any, for the pipeline's stages.
fn push_constants(device: &ash::Device, commands: vk::CommandBuffer, case: &Case, bindings: &Bindings) {
    if case.push_constants.is_empty() {
        return;
    }
    let bytes: Vec<u8> = case.push_constants.iter().flat_map(|word| word.to_le_bytes()).collect();
    unsafe { device.cmd_push_constants(commands, bindings.pipeline_layout, bindings.stages, 0, &bytes) };
}

/// The descriptor set of a case and what it binds.
struct Bindings {
    set: vk::DescriptorSet,
    pipeline_layout: vk::PipelineLayout,
    /// The stages the resources and push constants are for.
    stages: vk::ShaderStageFlags,
    /// Storage buffers, and buffers storage images are copied into after the run, by binding.
    storage: Vec<(u32, Buffer)>,
    /// Textures waiting to be uploaded: image, its aspect, staging buffer, a copy per mip level,
    /// the layout the shader reads it in.
    uploads: Vec<(vk::Image, vk::ImageAspectFlags, vk::Buffer, Vec<vk::BufferImageCopy>, vk::ImageLayout)>,
    /// Storage images to copy back after the run: image, buffer (also in `storage`), size.
    downloads: Vec<(vk::Image, vk::Buffer, vk::Extent2D)>,
}

/// The objects of one run, destroyed in reverse order of creation.
struct Run<'a> {
    vulkan: &'a Vulkan,
    owned: Vec<Owned>,
}

impl Drop for Run<'_> {
    fn drop(&mut self) {
        let device = &self.vulkan.device;
        for object in self.owned.drain(..).rev() {
            unsafe {
                match object {
                    Owned::Buffer(b) => device.destroy_buffer(b, None),
                    Owned::Memory(m) => device.free_memory(m, None),
                    Owned::Image(i) => device.destroy_image(i, None),
                    Owned::View(v) => device.destroy_image_view(v, None),
                    Owned::Sampler(s) => device.destroy_sampler(s, None),
                    Owned::SetLayout(l) => device.destroy_descriptor_set_layout(l, None),
                    Owned::PipelineLayout(l) => device.destroy_pipeline_layout(l, None),
                    Owned::DescriptorPool(p) => device.destroy_descriptor_pool(p, None),
                    Owned::Shader(s) => device.destroy_shader_module(s, None),
                    Owned::Pipeline(p) => device.destroy_pipeline(p, None),
                    Owned::CommandPool(p) => device.destroy_command_pool(p, None),
                    Owned::Fence(f) => device.destroy_fence(f, None),
                }
            }
        }
    }
}

impl<'a> Run<'a> {
    fn new(vulkan: &'a Vulkan) -> Run<'a> {
        Run { vulkan, owned: Vec::new() }
    }

    fn device(&self) -> &'a ash::Device {
        &self.vulkan.device
    }

    fn memory(
        &mut self,
        requirements: vk::MemoryRequirements,
        flags: vk::MemoryPropertyFlags,
    ) -> Result<vk::DeviceMemory, String> {
        let types = &self.vulkan.memory_types;
        let index = (0..types.memory_type_count)
            .find(|&i| {
                requirements.memory_type_bits & (1 << i) != 0
                    && types.memory_types[i as usize].property_flags.contains(flags)
            })
            .ok_or("no suitable memory type")?;
        let info = vk::MemoryAllocateInfo::default().allocation_size(requirements.size).memory_type_index(index);
        let memory = unsafe { self.device().allocate_memory(&info, None) }.map_err(vk_error("allocating memory"))?;
        self.owned.push(Owned::Memory(memory));
        Ok(memory)
    }

    /// A host-visible buffer holding `words`.
    fn buffer(&mut self, words: &[u32], usage: vk::BufferUsageFlags) -> Result<Buffer, String> {
        let size = words.len() * 4;
        let info = vk::BufferCreateInfo::default().size(size as u64).usage(usage);
        let buffer = unsafe { self.device().create_buffer(&info, None) }.map_err(vk_error("creating a buffer"))?;
        self.owned.push(Owned::Buffer(buffer));
        let requirements = unsafe { self.device().get_buffer_memory_requirements(buffer) };
        let host = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let memory = self.memory(requirements, host)?;
        unsafe {
            self.device().bind_buffer_memory(buffer, memory, 0).map_err(vk_error("binding buffer memory"))?;
            let mapped = self
                .device()
                .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .map_err(vk_error("mapping memory"))?
                .cast::<u8>();
            let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
            std::ptr::copy_nonoverlapping(bytes.as_ptr(), mapped, size);
            Ok(Buffer { buffer, mapped, size })
        }
    }

    fn image(
        &mut self,
        shape: &Shape,
        usage: vk::ImageUsageFlags,
        samples: vk::SampleCountFlags,
    ) -> Result<Image, String> {
        let cube = matches!(shape.view, ViewKind::Cube | ViewKind::CubeArray);
        let info = vk::ImageCreateInfo::default()
            .flags(if cube { vk::ImageCreateFlags::CUBE_COMPATIBLE } else { vk::ImageCreateFlags::empty() })
            .image_type(vk::ImageType::TYPE_2D)
            .format(shape.format)
            .extent(shape.extent.into())
            .mip_levels(shape.levels)
            .array_layers(shape.layers)
            .samples(samples)
            .tiling(vk::ImageTiling::OPTIMAL)
            .usage(usage);
        let image = unsafe { self.device().create_image(&info, None) }.map_err(vk_error("creating an image"))?;
        self.owned.push(Owned::Image(image));
        let requirements = unsafe { self.device().get_image_memory_requirements(image) };
        let memory = self.memory(requirements, vk::MemoryPropertyFlags::empty())?;
        unsafe { self.device().bind_image_memory(image, memory, 0) }.map_err(vk_error("binding image memory"))?;
        let view_type = match shape.view {
            ViewKind::D2 => vk::ImageViewType::TYPE_2D,
            ViewKind::D2Array => vk::ImageViewType::TYPE_2D_ARRAY,
            ViewKind::Cube => vk::ImageViewType::CUBE,
            ViewKind::CubeArray => vk::ImageViewType::CUBE_ARRAY,
        };
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(view_type)
            .format(shape.format)
            .subresource_range(whole_range(shape.aspect));
        let view = unsafe { self.device().create_image_view(&view_info, None) }.map_err(vk_error("creating a view"))?;
        self.owned.push(Owned::View(view));
        Ok(Image { image, view })
    }

    fn shader(&mut self, module: &Module) -> Result<vk::ShaderModule, String> {
        let words: Vec<u32> =
            module.spirv.chunks_exact(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let info = vk::ShaderModuleCreateInfo::default().code(&words);
        let shader = unsafe { self.device().create_shader_module(&info, None) }
            .map_err(vk_error("creating the shader module"))?;
        self.owned.push(Owned::Shader(shader));
        Ok(shader)
    }

    /// Creates every resource of the case and a descriptor set binding them
    /// at set 0.
    fn bind_resources(&mut self, case: &Case, stages: vk::ShaderStageFlags) -> Result<Bindings, String> {
        let mut layout_bindings = Vec::new();
        let mut pool_sizes = Vec::new();
        for resource in &case.resources {
            let kind = match resource.kind {
                ResourceKind::Storage(_) => vk::DescriptorType::STORAGE_BUFFER,
                ResourceKind::Uniform(_) => vk::DescriptorType::UNIFORM_BUFFER,
                ResourceKind::Texture(_) => vk::DescriptorType::SAMPLED_IMAGE,
                ResourceKind::StorageImage(_) => vk::DescriptorType::STORAGE_IMAGE,
                ResourceKind::Sampler { .. } => vk::DescriptorType::SAMPLER,
                ResourceKind::Combined { .. } => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
            };
            layout_bindings.push(
                vk::DescriptorSetLayoutBinding::default()
                    .binding(resource.binding)
                    .descriptor_type(kind)
                    .descriptor_count(1)
                    .stage_flags(stages),
            );
            pool_sizes.push(vk::DescriptorPoolSize { ty: kind, descriptor_count: 1 });
        }
        let device = self.device();
        let info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&layout_bindings);
        let set_layout = unsafe { device.create_descriptor_set_layout(&info, None) }
            .map_err(vk_error("creating the descriptor set layout"))?;
        self.owned.push(Owned::SetLayout(set_layout));
        let set_layouts = [set_layout];
        let size = 4 * case.push_constants.len() as u32;
        let push_ranges: Vec<_> =
            (size > 0).then_some(vk::PushConstantRange { stage_flags: stages, offset: 0, size }).into_iter().collect();
        let info = vk::PipelineLayoutCreateInfo::default().set_layouts(&set_layouts).push_constant_ranges(&push_ranges);
        let pipeline_layout =
            unsafe { device.create_pipeline_layout(&info, None) }.map_err(vk_error("creating the pipeline layout"))?;
        self.owned.push(Owned::PipelineLayout(pipeline_layout));
        if pool_sizes.is_empty() {
            // A pool needs at least one size; an unused one does no harm.
            pool_sizes.push(vk::DescriptorPoolSize { ty: vk::DescriptorType::STORAGE_BUFFER, descriptor_count: 1 });
        }
        let info = vk::DescriptorPoolCreateInfo::default().max_sets(1).pool_sizes(&pool_sizes);
        let pool =
            unsafe { device.create_descriptor_pool(&info, None) }.map_err(vk_error("creating a descriptor pool"))?;
        self.owned.push(Owned::DescriptorPool(pool));
        let info = vk::DescriptorSetAllocateInfo::default().descriptor_pool(pool).set_layouts(&set_layouts);
        let set =
            unsafe { device.allocate_descriptor_sets(&info) }.map_err(vk_error("allocating a descriptor set"))?[0];

        let mut bindings =
            Bindings { set, pipeline_layout, stages, storage: Vec::new(), uploads: Vec::new(), downloads: Vec::new() };
        for resource in &case.resources {
            let write = vk::WriteDescriptorSet::default().dst_set(set).dst_binding(resource.binding);
            match &resource.kind {
                ResourceKind::Storage(words) | ResourceKind::Uniform(words) => {
                    let storage = matches!(resource.kind, ResourceKind::Storage(_));
                    let (usage, kind) = if storage {
                        (vk::BufferUsageFlags::STORAGE_BUFFER, vk::DescriptorType::STORAGE_BUFFER)
                    } else {
                        (vk::BufferUsageFlags::UNIFORM_BUFFER, vk::DescriptorType::UNIFORM_BUFFER)
                    };
                    let buffer = self.buffer(words, usage)?;
                    let info = [vk::DescriptorBufferInfo { buffer: buffer.buffer, offset: 0, range: vk::WHOLE_SIZE }];
                    unsafe { device.update_descriptor_sets(&[write.descriptor_type(kind).buffer_info(&info)], &[]) };
                    if storage {
                        bindings.storage.push((resource.binding, buffer));
                    }
                }
                ResourceKind::Texture(texture) => {
                    let view = self.texture(texture, &mut bindings)?;
                    let info = [vk::DescriptorImageInfo {
                        image_view: view,
                        image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                        sampler: vk::Sampler::null(),
                    }];
                    let write = write.descriptor_type(vk::DescriptorType::SAMPLED_IMAGE).image_info(&info);
                    unsafe { device.update_descriptor_sets(&[write], &[]) };
                }
                ResourceKind::StorageImage(texture) => {
                    let info = [vk::DescriptorImageInfo {
                        image_view: self.storage_image(resource.binding, texture, &mut bindings)?,
                        image_layout: vk::ImageLayout::GENERAL,
                        sampler: vk::Sampler::null(),
                    }];
                    let write = write.descriptor_type(vk::DescriptorType::STORAGE_IMAGE).image_info(&info);
                    unsafe { device.update_descriptor_sets(&[write], &[]) };
                }
                ResourceKind::Sampler(sampler) => {
                    let info = [vk::DescriptorImageInfo { sampler: self.sampler(sampler)?, ..Default::default() }];
                    let write = write.descriptor_type(vk::DescriptorType::SAMPLER).image_info(&info);
                    unsafe { device.update_descriptor_sets(&[write], &[]) };
                }
                ResourceKind::Combined { texture, sampler } => {
                    let info = [vk::DescriptorImageInfo {
                        image_view: self.texture(texture, &mut bindings)?,
                        image_layout: vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL,
                        sampler: self.sampler(sampler)?,
                    }];
                    let write = write.descriptor_type(vk::DescriptorType::COMBINED_IMAGE_SAMPLER).image_info(&info);
                    unsafe { device.update_descriptor_sets(&[write], &[]) };
                }
            }
        }
        bindings.storage.sort_by_key(|(binding, _)| *binding);
        Ok(bindings)
    }

    /// A sampler clamping to the edge, nearest or linear; nearest between mip levels, with no
    /// limit on the level but the texture's (as WebGPU's default sampler); maybe comparing.
    fn sampler(&mut self, sampler: &Sampler) -> Result<vk::Sampler, String> {
        let filter = if sampler.linear { vk::Filter::LINEAR } else { vk::Filter::NEAREST };
        let info = vk::SamplerCreateInfo::default()
            .compare_enable(sampler.compare.is_some())
            .compare_op(sampler.compare.map_or(vk::CompareOp::NEVER, |op| op.vulkan))
            .mag_filter(filter)
            .min_filter(filter)
            .mipmap_mode(vk::SamplerMipmapMode::NEAREST)
            .max_lod(vk::LOD_CLAMP_NONE)
            .address_mode_u(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_v(vk::SamplerAddressMode::CLAMP_TO_EDGE)
            .address_mode_w(vk::SamplerAddressMode::CLAMP_TO_EDGE);
        let sampler = unsafe { self.device().create_sampler(&info, None) }.map_err(vk_error("creating a sampler"))?;
        self.owned.push(Owned::Sampler(sampler));
        Ok(sampler)
    }

    /// A sampled image for `texture`, uploaded by `upload_textures`.
    fn texture(&mut self, texture: &Texture, bindings: &mut Bindings) -> Result<vk::ImageView, String> {
        let usage = vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::TRANSFER_DST;
        let image = self.uploaded_image(texture, usage, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL, bindings)?;
        Ok(image.view)
    }

    /// A storage image holding `texture`'s texels, uploaded by `upload_textures` and copied
    /// back by `download_images` into a buffer read with the storage buffers.
    fn storage_image(
        &mut self,
        binding: u32,
        texture: &Texture,
        bindings: &mut Bindings,
    ) -> Result<vk::ImageView, String> {
        let usage =
            vk::ImageUsageFlags::STORAGE | vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::TRANSFER_SRC;
        let image = self.uploaded_image(texture, usage, vk::ImageLayout::GENERAL, bindings)?;
        let readback = self.buffer(&vec![0; texture.words.len()], vk::BufferUsageFlags::TRANSFER_DST)?;
        let extent = vk::Extent2D { width: texture.width, height: texture.height };
        bindings.downloads.push((image.image, readback.buffer, extent));
        bindings.storage.push((binding, readback));
        Ok(image.view)
    }

    /// An image of `texture`'s size, levels and format, to be uploaded and left in `layout`.
    fn uploaded_image(
        &mut self,
        texture: &Texture,
        usage: vk::ImageUsageFlags,
        layout: vk::ImageLayout,
        bindings: &mut Bindings,
    ) -> Result<Image, String> {
        let shape = Shape::of(texture);
        let image = self.image(&shape, usage, vk::SampleCountFlags::TYPE_1)?;
        let mut bytes = texture.upload_bytes();
        bytes.resize(bytes.len().next_multiple_of(4), 0);
        let words: Vec<u32> = bytes.chunks(4).map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]])).collect();
        let staging = self.buffer(&words, vk::BufferUsageFlags::TRANSFER_SRC)?;
        let layers = vk::ImageSubresourceLayers::default().aspect_mask(shape.aspect).layer_count(texture.layers);
        let regions = texture
            .mip_levels()
            .into_iter()
            .map(|level| {
                vk::BufferImageCopy::default()
                    .buffer_offset(level.bytes.start as u64)
                    .image_subresource(layers.mip_level(level.index))
                    .image_extent(vk::Extent3D { width: level.width, height: level.height, depth: 1 })
            })
            .collect();
        bindings.uploads.push((image.image, shape.aspect, staging.buffer, regions, layout));
        Ok(image)
    }

    fn upload_textures(&self, commands: vk::CommandBuffer, bindings: &Bindings) {
        for (image, aspect, staging, regions, layout) in &bindings.uploads {
            let (image, aspect, staging) = (*image, *aspect, *staging);
            self.transition(commands, image, aspect, vk::ImageLayout::UNDEFINED, vk::ImageLayout::TRANSFER_DST_OPTIMAL);
            unsafe {
                self.device().cmd_copy_buffer_to_image(
                    commands,
                    staging,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    regions,
                )
            };
            self.transition(commands, image, aspect, vk::ImageLayout::TRANSFER_DST_OPTIMAL, *layout);
        }
    }

    /// Copies each storage image into its buffer, after the run.
    fn download_images(&self, commands: vk::CommandBuffer, bindings: &Bindings) {
        for &(image, buffer, extent) in &bindings.downloads {
            let color = vk::ImageAspectFlags::COLOR;
            self.transition(commands, image, color, vk::ImageLayout::GENERAL, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
            let region = vk::BufferImageCopy::default().image_subresource(color_layers()).image_extent(extent.into());
            unsafe {
                self.device().cmd_copy_image_to_buffer(
                    commands,
                    image,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    buffer,
                    &[region],
                )
            };
        }
    }

    /// A layout transition that waits for everything before it: simple, and
    /// runs are too small for finer barriers to matter.
    fn transition(
        &self,
        commands: vk::CommandBuffer,
        image: vk::Image,
        aspect: vk::ImageAspectFlags,
        from: vk::ImageLayout,
        to: vk::ImageLayout,
    ) {
        let all = vk::AccessFlags::MEMORY_READ | vk::AccessFlags::MEMORY_WRITE;
        let barrier = vk::ImageMemoryBarrier::default()
            .src_access_mask(all)
            .dst_access_mask(all)
            .old_layout(from)
            .new_layout(to)
            .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
            .image(image)
            .subresource_range(whole_range(aspect));
        unsafe {
            self.device().cmd_pipeline_barrier(
                commands,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier],
            )
        };
    }

    /// A command pool of the run's own (pools are not shared across threads)
    /// and a command buffer from it, begun.
    fn begin(&mut self) -> Result<vk::CommandBuffer, String> {
        let info = vk::CommandPoolCreateInfo::default().queue_family_index(self.vulkan.queue_family);
        let pool =
            unsafe { self.device().create_command_pool(&info, None) }.map_err(vk_error("creating a command pool"))?;
        self.owned.push(Owned::CommandPool(pool));
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .level(vk::CommandBufferLevel::PRIMARY)
            .command_buffer_count(1);
        let commands = unsafe { self.device().allocate_command_buffers(&info) }
            .map_err(vk_error("allocating a command buffer"))?[0];
        let begin = vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
        unsafe { self.device().begin_command_buffer(commands, &begin) }.map_err(vk_error("beginning commands"))?;
        Ok(commands)
    }

    /// Makes every write visible to the host, submits, and waits.
    fn finish(&mut self, commands: vk::CommandBuffer) -> Result<(), String> {
        let device = self.device();
        let barrier = vk::MemoryBarrier::default()
            .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ);
        unsafe {
            device.cmd_pipeline_barrier(
                commands,
                vk::PipelineStageFlags::ALL_COMMANDS,
                vk::PipelineStageFlags::HOST,
                vk::DependencyFlags::empty(),
                &[barrier],
                &[],
                &[],
            );
            device.end_command_buffer(commands).map_err(vk_error("ending commands"))?;
            let fence =
                device.create_fence(&vk::FenceCreateInfo::default(), None).map_err(vk_error("creating a fence"))?;
            self.owned.push(Owned::Fence(fence));
            let buffers = [commands];
            let submit = vk::SubmitInfo::default().command_buffers(&buffers);
            {
                let queue = self.vulkan.queue.lock().unwrap_or_else(|e| e.into_inner());
                device.queue_submit(*queue, &[submit], fence).map_err(vk_error("submitting"))?;
            }
            device.wait_for_fences(&[fence], true, 60_000_000_000).map_err(vk_error("waiting for the run"))?;
        }
        Ok(())
    }

    fn read_storage(bindings: &Bindings) -> Vec<(u32, Vec<u8>)> {
        bindings.storage.iter().map(|(binding, buffer)| (*binding, buffer.read())).collect()
    }
}
